/**
 * `@chat-messaging/client`: the catalogue's operations as methods, for code — scripts, n8n's Code node
 * (with external modules allowed), Node-RED function nodes. The same executor as both nodes: input
 * checked before anything is sent, pacing shared per token, safe retries, sends in doubt resolved,
 * pagination, one error type. Methods are made from the descriptors at load; their types are
 * generated from the same descriptors at build (`index.d.ts`), never written by hand.
 *
 *   const client = createClient({ baseUrl: 'http://127.0.0.1:4010', token: 'demo' });
 *   const open = await client.chats.getMany({ closed: false });
 */
import {
	COMPOSITES,
	Executor,
	pacingKey,
	RESOURCES,
	type Attachment,
	type OperationDescriptor,
	type ResourceDescriptor,
	type ResourceKey,
	type RunOptions,
	type Transport,
	type WaitTarget,
} from '@chat-messaging/core';

import { fetchTransport, realTiming } from './transport';

export { ChatMessagingError } from '@chat-messaging/core';
/** The built-in transport, for code that runs the core's Executor itself or wraps the transport (a proxy, a log). */
export { fetchTransport, realTiming } from './transport';

export interface ClientOptions {
	/** The service's base URL, e.g. https://api.example.com (or the sandbox's). */
	baseUrl: string;
	token: string;
	/** Replaces the built-in fetch transport (tests, proxies). */
	transport?: Transport;
}

/** Options of the message-sending methods. */
export interface SendOptions {
	attachment?: Attachment;
	waitFor?: WaitTarget;
	timeoutMs?: number;
}

/** `chat` → `chats`, as the methods are grouped: `client.chats.getMany()`. */
export const groupName = (resource: ResourceKey): string => (resource === 'workspace' ? 'workspace' : `${resource}s`);

/** The operation key as a method name; `getAll` reads as n8n's "Get Many". */
export const methodName = (op: Pick<OperationDescriptor, 'operation'>): string => (op.operation === 'getAll' ? 'getMany' : op.operation);

type Method = (input?: Record<string, unknown>, options?: RunOptions & SendOptions) => Promise<unknown>;

/** Every operation of the catalogue as a method (the catalogue a test passes, else the real one). */
export function createClient(
	options: ClientOptions,
	resources: readonly ResourceDescriptor[] = RESOURCES,
): Record<string, Record<string, Method>> & { executor: Executor } {
	const executor = new Executor({
		baseUrl: options.baseUrl,
		token: options.token,
		transport: options.transport ?? fetchTransport,
		timing: realTiming,
		pacingKey: pacingKey(options.baseUrl.trim().replace(/\/+$/, ''), options.token),
	});
	const client: Record<string, Record<string, Method>> = {};
	for (const resource of resources) {
		const group: Record<string, Method> = (client[groupName(resource.key)] = {});
		for (const op of resource.operations) {
			group[methodName(op)] = (input = {}, callOptions = {}) =>
				op.sendsMessage
					? executor.sendAndWait(`${op.resource}:${op.operation}`, input, callOptions)
					: executor.run(op, input, { returnAll: callOptions.returnAll ?? true, limit: callOptions.limit });
		}
	}
	// Composite operations (client.messages.send, client.messages.sendAndWaitForReply): one call, the core's handler.
	for (const composite of COMPOSITES) {
		const group: Record<string, Method> = (client[groupName(composite.resource)] ??= {});
		group[methodName(composite)] = (input = {}) => executor.run(composite, input);
	}
	return Object.assign(client, { executor });
}
