/**
 * The editor's lists for version 2: resource locators search (`listSearch`, one service page per
 * call, n8n's `paginationToken` being the next page) and dropdowns load (`loadOptions`). Both read
 * through the api's lookups, with the credential's auth, retries and pacing.
 */
import type { ILoadOptionsFunctions, INodeListSearchResult, INodePropertyOptions, INodeType } from 'n8n-workflow';

import { lookup } from '@chat-messaging/core';
import type { LookupKey } from '@chat-messaging/core';
import { toNodeError } from '../../shared/errors';
import { createExecutor } from '../../shared/transport';

async function search(
	context: ILoadOptionsFunctions,
	key: LookupKey,
	filter?: string,
	paginationToken?: unknown,
): Promise<INodeListSearchResult> {
	try {
		const executor = await createExecutor(context);
		const page = await lookup(executor, key, filter ?? '', paginationToken === undefined ? undefined : String(paginationToken));
		return {
			results: page.results.map((result) => ({ name: result.name, value: result.value, ...(result.url ? { url: result.url } : {}) })),
			...(page.nextPageToken ? { paginationToken: page.nextPageToken } : {}),
		};
	} catch (error) {
		throw toNodeError(context.getNode(), error, 0);
	}
}

async function load(context: ILoadOptionsFunctions, key: LookupKey): Promise<INodePropertyOptions[]> {
	try {
		const executor = await createExecutor(context);
		const page = await lookup(executor, key);
		return page.results.map((result) => ({
			name: result.name,
			value: result.value,
			...(result.description ? { description: result.description } : {}),
		}));
	} catch (error) {
		throw toNodeError(context.getNode(), error, 0);
	}
}

export const methods: NonNullable<INodeType['methods']> = {
	listSearch: {
		async searchChats(this: ILoadOptionsFunctions, filter?: string, paginationToken?: string) {
			return await search(this, 'chat', filter, paginationToken);
		},
		async searchTeammates(this: ILoadOptionsFunctions, filter?: string) {
			return await search(this, 'teammate', filter);
		},
		async searchWebhooks(this: ILoadOptionsFunctions, filter?: string) {
			return await search(this, 'webhook', filter);
		},
		async searchFiles(this: ILoadOptionsFunctions, filter?: string, paginationToken?: string) {
			return await search(this, 'file', filter, paginationToken);
		},
		async searchInvitations(this: ILoadOptionsFunctions, filter?: string) {
			return await search(this, 'invitation', filter);
		},
	},
	loadOptions: {
		async getTeammates(this: ILoadOptionsFunctions) {
			return await load(this, 'teammate');
		},
		async getTeammatesOrNobody(this: ILoadOptionsFunctions) {
			return [
				{ name: 'Nobody (Unassign)', value: '', description: 'Remove the responsible team member' },
				...(await load(this, 'teammate')),
			];
		},
		async getAccounts(this: ILoadOptionsFunctions) {
			return await load(this, 'account');
		},
		async getLabels(this: ILoadOptionsFunctions) {
			return await load(this, 'label');
		},
	},
};
