/**
 * The MCP endpoint as an OAuth resource server: whose a request is (the grant its access token stands for), and
 * the challenges a client reads when it is not (401 pointing to the protected resource metadata, 403
 * insufficient_scope naming the scope that would cover the call). A grant acts on its own workspace with its own
 * executor, kept while it is used.
 */
import type { Executor } from '@chat-messaging/core';

import type { RequestRefusal } from '../calls/errors';
import type { CatalogueTool } from '../tools';
import type { GrantProvider } from './provider';
import { DEFAULT_SCOPE, scopeWordsOf, toolsOfScope } from './scopes';

/** A caller the resource server let in: a grant, its executor and the tools its scope gives. */
export interface GrantCaller {
	grantId: string;
	clientId: string;
	scope: string;
	executor: Executor;
	tools: readonly CatalogueTool[];
}

export interface Challenge {
	status: 401 | 403;
	header: string;
	message: string;
}

const quoted = (text: string) => text.replace(/["\\]/g, '');

/** RFC 6750 §3 / RFC 9728 §5.1: no error code when no token came, `invalid_token` when one did and is no good. */
export function unauthorized(resourceMetadataUrl: string, sentToken: boolean): Challenge {
	const parts = [
		...(sentToken
			? ['error="invalid_token"', 'error_description="The access token is not valid: unknown, expired, revoked or for another resource"']
			: []),
		`resource_metadata="${quoted(resourceMetadataUrl)}"`,
		`scope="${DEFAULT_SCOPE}"`,
	];
	return {
		status: 401,
		header: `Bearer ${parts.join(', ')}`,
		message: sentToken ? 'Unauthorized: the access token is not valid' : 'Unauthorized: connect through OAuth (see WWW-Authenticate)',
	};
}

export function insufficientScope(resourceMetadataUrl: string, scope: string, tool: string): Challenge {
	return {
		status: 403,
		header: `Bearer error="insufficient_scope", scope="${quoted(scope)}", resource_metadata="${quoted(resourceMetadataUrl)}", error_description="${quoted(`${tool} needs the scope ${scope}`)}"`,
		message: `Forbidden: ${tool} is outside the access this connection was given; it needs the scope "${scope}"`,
	};
}

const MAX_EXECUTORS = 256;

export class GrantCallers {
	/** Executors by grant, most recently used last (one per workspace token keeps its pacing and memory of sends). */
	private readonly executors = new Map<string, Executor>();

	constructor(
		private readonly options: {
			provider: GrantProvider;
			/** This server's resource: a token for any other is refused. */
			resource: string;
			resourceMetadataUrl: string;
			allTools: readonly CatalogueTool[];
			/** The tools the server offers at all (its own options cap every grant). */
			offeredTools: readonly CatalogueTool[];
			executorFor: (workspaceToken: string) => Executor;
		},
	) {}

	/** The caller an Authorization header stands for, or the challenge to answer with. */
	async callerOf(authorization: string | undefined): Promise<GrantCaller | Challenge> {
		const match = /^Bearer\s+(\S+)\s*$/i.exec(authorization ?? '');
		if (!match) return unauthorized(this.options.resourceMetadataUrl, Boolean(authorization));
		const verified = await this.options.provider.verifiedGrant(match[1] ?? '');
		if (!verified || verified.record.resource !== this.options.resource) return unauthorized(this.options.resourceMetadataUrl, true);
		const executor = await this.executorOf(verified.grantId, () =>
			this.options.provider.workspaceTokenOf(verified.grantId, verified.grant),
		);
		// A grant whose workspace token cannot be opened has been dropped: its token is no good any more.
		if (!executor) return unauthorized(this.options.resourceMetadataUrl, true);
		return {
			grantId: verified.grantId,
			clientId: verified.clientId,
			scope: verified.scope,
			executor,
			tools: toolsOfScope(verified.scope, this.options.allTools, this.options.offeredTools),
		};
	}

	/**
	 * The pipeline's refusal of a call for the caller's scope (calls/pipeline.ts, scopeRefusalOf) as a 403 naming, in
	 * this server's scope words, the scope that gives the tool; none for a tool the server does not offer at all (its own
	 * options cap every grant, so no consent could give it: the server answers it as an unknown tool).
	 */
	challengeFor(refusal: RequestRefusal | undefined): Challenge | undefined {
		const needed = refusal?.insufficientScope;
		if (!needed || !this.options.offeredTools.some((tool) => tool.name === needed.tool)) return undefined;
		return insufficientScope(this.options.resourceMetadataUrl, scopeWordsOf(needed.scope), needed.tool);
	}

	private async executorOf(grantId: string, workspaceToken: () => Promise<string | undefined>): Promise<Executor | undefined> {
		let executor = this.executors.get(grantId);
		if (executor) this.executors.delete(grantId);
		else {
			const token = await workspaceToken();
			if (token === undefined) return undefined;
			executor = this.options.executorFor(token);
		}
		this.executors.set(grantId, executor);
		const oldest = this.executors.keys().next().value;
		if (this.executors.size > MAX_EXECUTORS && oldest !== undefined) this.executors.delete(oldest);
		return executor;
	}
}

export const isChallenge = (value: GrantCaller | Challenge): value is Challenge => 'status' in value;
