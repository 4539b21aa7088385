/**
 * `chat-messaging-config`: the service address, the API token (a credential, never exported with
 * flows) and the public address the service can reach this Node-RED at (for the event node).
 *
 * One HTTP client and one Executor per config node: every action and event node using it shares
 * the keep-alive sockets and the client-side pacing under the service's rate limit.
 */
import { ChatMessagingError, Executor, inputError, normalizeBaseUrl, pacingKey, redactError } from '@chat-messaging/core';
import { migrateConfig } from './migrations';
import { createHttpClient, realTiming, type HttpClient } from '../../shared/transport';
import type { Node, NodeAPI } from 'node-red';
import type { SavedNodeDef } from '../../shared/saved';

export const CONFIG_TYPE = 'chat-messaging-config';

/** The token is a credential: never a property, never exported with the flow. */
export interface ConfigCredentials {
	token?: string;
}

export interface ConfigNode extends Node<ConfigCredentials> {
	baseUrl: string;
	publicUrl: string;
	/** IANA zone a date alone (and a date-time without a zone) is read in; empty: this Node-RED's own zone. */
	timeZone: string;
	/** The executor, or the input error that explains why there is none (bad URL, no token). */
	getExecutor(): Executor;
}

export function registerConfigNode(RED: NodeAPI): void {
	RED.nodes.registerType<Node<ConfigCredentials>, SavedNodeDef, unknown, ConfigCredentials>(
		CONFIG_TYPE,
		function (this: Node<ConfigCredentials>, saved: SavedNodeDef) {
			RED.nodes.createNode(this, saved);
			const definition = migrateConfig(saved);
			const node = this as ConfigNode;
			node.name = String(definition.name ?? '');
			node.baseUrl = String(definition.baseUrl ?? '').trim();
			node.publicUrl = String(definition.publicUrl ?? '').trim();
			node.timeZone = String(definition.timeZone).trim();

			if (!node.credentials?.token) {
				node.warn('No API token: set it in this Chat Messaging configuration node, then deploy (its nodes cannot call the service)');
			}

			let client: HttpClient | undefined;
			let executor: Executor | undefined;
			node.getExecutor = () => {
				if (executor) return executor;
				const token = node.credentials?.token;
				if (!token) throw inputError('token', 'the API token is missing in the Chat Messaging configuration node');
				let baseUrl: string;
				try {
					baseUrl = normalizeBaseUrl(node.baseUrl);
				} catch (error) {
					throw redactError(error, [token]); // names baseUrl, never the token should it have been pasted there
				}
				const timeZone = node.timeZone || runtimeTimeZone();
				try {
					new Intl.DateTimeFormat('en-US', { timeZone });
				} catch {
					throw inputError('timeZone', `is not a time zone name such as Europe/Berlin, got "${timeZone}"`, 'Time zone');
				}
				client = createHttpClient();
				// One pacer per token in this Node-RED, however many config nodes hold it.
				const sharedPacing = pacingKey(baseUrl, token);
				executor = new Executor({ baseUrl, token, transport: client.transport, timing: realTiming, pacingKey: sharedPacing, timeZone });
				return executor;
			};

			// Drops the pooled sockets. The executor stays usable (agents open new sockets on demand): event
			// nodes closing at the same moment still delete their subscriptions through it.
			node.on('close', (_removed: boolean, done: () => void) => {
				client?.destroy();
				done();
			});
		},
		{ credentials: { token: { type: 'password' } } },
	);
}

/**
 * The zone of this Node-RED's process (its TZ), where a configuration without a time zone reads dates:
 * a flow saved before the setting existed reads a date alone as midnight where Node-RED runs.
 */
export const runtimeTimeZone = (): string => Intl.DateTimeFormat().resolvedOptions().timeZone || 'UTC';

/** The config node a node points at, or an input error naming the missing setting. */
export function resolveConfig(RED: NodeAPI, configId: unknown): ConfigNode {
	const config = typeof configId === 'string' && configId ? (RED.nodes.getNode(configId) as ConfigNode | null) : null;
	if (!config || typeof config.getExecutor !== 'function') {
		throw new ChatMessagingError('config: choose a Chat Messaging configuration node (service URL and API token)', {
			kind: 'input',
			field: 'config',
		});
	}
	return config;
}
