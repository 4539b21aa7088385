/**
 * The lists users pick ids and values from in the editors (n8n's resource locators and dropdowns,
 * Node-RED's searchable id fields), read through an Executor so they get the same auth, retries and
 * pacing as every other call. A field names its list with `FieldDescriptor.picker`.
 *
 * Paginated lists are read one service page per call: the page token is the service's next page
 * number, so an editor asks for more only when the user scrolls.
 */
import { redactSubscriptionUrl } from './events/subscriptions';
import type { Executor } from './executor';
import { isRecord } from './validation';
import { matchesKind } from '../catalogue/fields';
import type { LookupKey } from '../catalogue/types';

export interface LookupResult {
	/** What the user reads in the list. */
	name: string;
	/** What is stored in the field. */
	value: string;
	/** Where the record opens in the service's web app, when it has such a page. */
	url?: string;
	description?: string;
}

export interface LookupPage {
	results: LookupResult[];
	/** Give it back to read the next page; absent on the last one. */
	nextPageToken?: string;
}

/**
 * A chat's address in the web app: the spec's `chat_url` is "link to the chat in the web application";
 * records show it as `https://<web app host>/chats/<chat id>` (optionally with a workspace prefix before
 * `/chats/` and a query or fragment after the id). The host is not checked: workspaces may use their own.
 */
export const CHAT_URL_PATTERN = '^https?://[^/\\s]+(?:/[^\\s?#]*)?/chats/(\\d+)(?:[/?#]\\S*)?$';
/** An example for placeholders. */
export const CHAT_URL_EXAMPLE = 'https://app.chat-messaging.example/chats/42';

/** The chat id in a chat URL, or undefined when the text is no chat URL. */
export function chatIdFromUrl(url: string): string | undefined {
	return new RegExp(CHAT_URL_PATTERN).exec(String(url ?? '').trim())?.[1];
}

const text = (value: unknown): string => (typeof value === 'string' ? value : typeof value === 'number' ? String(value) : '');

/** Case-insensitive "contains" over some of a record's texts; an empty search matches everything. */
const matches = (search: string, ...values: unknown[]): boolean => {
	const needle = search.trim().toLowerCase();
	return !needle || values.some((value) => text(value).toLowerCase().includes(needle));
};

const pageNumber = (token: string | undefined): number => {
	const page = Number(token);
	return Number.isInteger(page) && page >= 1 ? page : 1;
};

/** One page of a paginated catalogue list, its items and whether another page follows. */
async function servicePage(
	executor: Executor,
	operation: string,
	input: Record<string, unknown>,
	token: string | undefined,
): Promise<{ items: Record<string, unknown>[]; nextPageToken?: string }> {
	const page = pageNumber(token);
	const { items, more } = await executor.listPage(operation, input, page);
	return { items, ...(more ? { nextPageToken: String(page + 1) } : {}) };
}

/** A list the service returns whole, as records. */
async function wholeList(executor: Executor, operation: string): Promise<Record<string, unknown>[]> {
	const data = await executor.run(operation, {});
	return Array.isArray(data) ? data.filter(isRecord) : [];
}

/**
 * Chats by name or phone: a search of digits (optional `+`) filters by phone, anything else by name
 * (one string, commas included, so "Smith, John" is not read as two names).
 */
async function chats(executor: Executor, search: string, token?: string): Promise<LookupPage> {
	const query = search.trim();
	const filter = !query ? {} : matchesKind('phoneFilter', query) ? { phone: query } : { name: [query] };
	const { items, nextPageToken } = await servicePage(executor, 'chat:getAll', filter, token);
	return {
		results: items.map((chat) => {
			const details = [chat.is_group ? 'group' : text(chat.phone), chat.closed ? 'closed' : ''].filter(Boolean).join(', ');
			return {
				name: details ? `${text(chat.name)} (${details})` : text(chat.name),
				value: text(chat.id),
				...(text(chat.chat_url) ? { url: text(chat.chat_url) } : {}),
			};
		}),
		nextPageToken,
	};
}

async function files(executor: Executor, search: string, token?: string): Promise<LookupPage> {
	const filter = search.trim() ? { filename: search.trim() } : {};
	const { items, nextPageToken } = await servicePage(executor, 'file:getAll', filter, token);
	return {
		results: items.map((file) => ({
			name: text(file.filename) || text(file.uid),
			value: text(file.uid),
			description: [text(file.mimetype), text(file.uploaded_at)].filter(Boolean).join(', '),
		})),
		nextPageToken,
	};
}

async function teammates(executor: Executor, search: string): Promise<LookupPage> {
	const all = await wholeList(executor, 'teammate:getAll');
	return {
		results: all
			.filter((mate) => mate.status !== 'invited' && matches(search, mate.display_name, mate.email))
			.map((mate) => ({
				name: text(mate.display_name) ? `${text(mate.display_name)} (${text(mate.email)})` : text(mate.email),
				value: text(mate.email),
				description: text(mate.role),
			})),
	};
}

/** Pending invitations: the teammates list holds invited people with status `invited`. */
async function invitations(executor: Executor, search: string): Promise<LookupPage> {
	const all = await wholeList(executor, 'teammate:getAll');
	return {
		results: all
			.filter((mate) => mate.status === 'invited' && matches(search, mate.display_name, mate.email))
			.map((mate) => ({
				name: text(mate.display_name) ? `${text(mate.display_name)} (${text(mate.email)})` : text(mate.email),
				value: text(mate.user_id),
				description: `Invited as ${text(mate.role) || 'teammate'}`,
			})),
	};
}

async function accounts(executor: Executor, search: string): Promise<LookupPage> {
	const all = await wholeList(executor, 'account:getAll');
	return {
		results: all
			.filter((account) => matches(search, account.account_name, account.phone, account.id))
			.map((account) => ({
				name: [text(account.account_name), text(account.phone)].filter(Boolean).join(' ') || text(account.id),
				value: text(account.id),
				description: [text(account.id), text(account.status)].filter(Boolean).join(', '),
			})),
	};
}

async function webhooks(executor: Executor, search: string): Promise<LookupPage> {
	const all = await wholeList(executor, 'webhook:getAll');
	// Receivers keep their secrets in the URL (the trigger's ?secret=): a picker shows and matches it without them.
	const shown = (hook: Record<string, unknown>) => redactSubscriptionUrl(text(hook.url));
	return {
		results: all
			.filter((hook) => matches(search, hook.event_type, shown(hook), hook.id))
			.map((hook) => ({
				name: `${text(hook.event_type)} → ${shown(hook)}`,
				value: text(hook.id),
				description: hook.enabled === false ? 'Disabled' : 'Enabled',
			})),
	};
}

/** How many pages of chats are read to collect the labels in use: the service has no list of labels. */
export const LABEL_SCAN_PAGES = 10;

/** Labels carried by the workspace's chats (the first LABEL_SCAN_PAGES pages), sorted. */
async function labels(executor: Executor, search: string): Promise<LookupPage> {
	const found = new Set<string>();
	let token: string | undefined;
	for (let read = 0; read < LABEL_SCAN_PAGES; read++) {
		const page = await servicePage(executor, 'chat:getAll', {}, token);
		for (const chat of page.items) if (Array.isArray(chat.labels)) chat.labels.forEach((label) => found.add(text(label)));
		token = page.nextPageToken;
		if (!token) break;
	}
	return {
		results: [...found]
			.filter((label) => label && matches(search, label))
			.sort((a, b) => a.localeCompare(b))
			.map((label) => ({ name: label, value: label })),
	};
}

export const LOOKUPS: Record<LookupKey, (executor: Executor, search: string, pageToken?: string) => Promise<LookupPage>> = {
	chat: chats,
	teammate: teammates,
	account: accounts,
	webhook: webhooks,
	file: files,
	invitation: invitations,
	label: labels,
};

/** One page of a list, filtered by `search`. */
export function lookup(executor: Executor, key: LookupKey, search = '', pageToken?: string): Promise<LookupPage> {
	const list = LOOKUPS[key];
	if (!list) throw new Error(`Unknown list "${key}"`);
	return list(executor, search ?? '', pageToken);
}
