/**
 * OAuth as the command starts it: the store, the authorization server and the resource server's callers, from the
 * public URL, the store's location and the sealing key. A workspace token is checked at consent by the read a
 * connector would make first (Workspace: Get), through the core's executor, before anything is stored.
 */
import { ChatMessagingError, type Executor } from '@chat-messaging/core';

import type { TaskStore } from '../calls/taskStore';
import { openStore } from '../store/openStore';
import type { GrantStore } from '../store/store';
import { catalogueTools, type CatalogueTool } from '../tools';
import { authorizationServer, type AuthorizationServer } from './authorizationServer';
import type { WorkspaceTokenCheck } from './consent';
import { GrantCallers } from './resourceServer';
import type { SafeFetchOptions } from './safeFetch';

/** What a person is told when the service refuses the token they pasted, or cannot be asked. Never the token. */
export function workspaceTokenCheck(executorFor: (workspaceToken: string) => Executor): WorkspaceTokenCheck {
	return async (workspaceToken) => {
		try {
			await executorFor(workspaceToken).run('workspace:get');
			return undefined;
		} catch (error) {
			if (error instanceof ChatMessagingError && (error.httpStatus === 401 || error.httpStatus === 403))
				return `The service refused this API token (HTTP ${error.httpStatus}): copy the workspace's API token again from the owner's account settings`;
			return `The service could not be asked whether this token is good: ${(error as Error).message}. Try again in a moment`;
		}
	};
}

export interface OAuthSetup {
	server: AuthorizationServer;
	callers: GrantCallers;
	store: GrantStore;
	/** Tasks shared by the replicas of a Redis store; none with SQLite (the process's memory). */
	tasks?: TaskStore;
}

export async function startOAuth(options: {
	publicUrl: string;
	mcpPath: string;
	storeLocation: string;
	secretKey: string | undefined;
	names: { store: string; secretKey: string };
	/** The tools the server offers (its options): every grant's tools are among them. */
	offeredTools: readonly CatalogueTool[];
	executorFor: (workspaceToken: string) => Executor;
	onStoreError: (error: Error) => void;
	fetchOptions?: SafeFetchOptions;
	checkWorkspaceToken?: WorkspaceTokenCheck;
}): Promise<OAuthSetup> {
	const { store, secrets, tasks } = await openStore(options.storeLocation, options.secretKey, options.names, options.onStoreError);
	const allTools = catalogueTools();
	const server = authorizationServer({
		publicUrl: options.publicUrl,
		mcpPath: options.mcpPath,
		store,
		secrets,
		allTools,
		checkWorkspaceToken: options.checkWorkspaceToken ?? workspaceTokenCheck(options.executorFor),
		...(options.fetchOptions ? { fetchOptions: options.fetchOptions } : {}),
	});
	const callers = new GrantCallers({
		provider: server.provider,
		resource: server.resource,
		resourceMetadataUrl: server.resourceMetadataUrl,
		allTools,
		offeredTools: options.offeredTools,
		executorFor: options.executorFor,
	});
	return { server, callers, store, ...(tasks ? { tasks } : {}) };
}
