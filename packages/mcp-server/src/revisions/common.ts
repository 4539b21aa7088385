/**
 * What both revisions' servers are made of, whichever SDK serves them: who the server is; the parts every server of a
 * process shares, whoever calls (its catalogue, file links, tasks and options: sharedParts, built once); the parts of
 * one caller (its workspace, the tools its scope gives, whose tasks and links it reads: callerParts, for each session
 * or request); and the tools as tools/list shows them. A transport makes a server for a caller with
 * server2025(callerParts(shared, caller)) or server2026(callerParts(shared, caller), closed).
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

import type { CatalogueOperation, Executor } from '@chat-messaging/core';
import type { CallParts } from '../calls/pipeline';
import { runsAsTask } from '../calls/tasks';
import { taskOwnerOf } from '../calls/taskOwner';
import { ToolTasks, type TaskStore } from '../calls/taskStore';
import { FileLinks, type OwnedLinks } from '../resources/fileLinks';
import { selectTools } from '../scopes';
import { catalogueTools, type CatalogueTool } from '../tools';

export const SERVER_NAME = 'chat-messaging';

/** The package's version, from its package.json: one folder up from dist/index.js, two from src/revisions/ (run from source). */
export function packageVersion(): string {
	for (const folder of [join(__dirname, '..'), join(__dirname, '..', '..')]) {
		try {
			const pkg = JSON.parse(readFileSync(join(folder, 'package.json'), 'utf8')) as { name?: string; version: string };
			if (pkg.name === '@chat-messaging/mcp-server') return pkg.version;
		} catch {
			// Not this folder: the next one.
		}
	}
	return '0.0.0';
}

/** Who the server is, on either revision. */
export const SERVER_INFO = (version: string) => ({ name: SERVER_NAME, version, title: 'Chat Messaging' });

export const SERVER_INSTRUCTIONS =
	'Tools for the Chat Messaging Service: chats, messages, labels, notes, files, webhooks and the workspace. ' +
	'List tools return items and, when more follow, nextCursor to pass back as cursor.';

/** What every server of a process shares, whoever calls. */
export interface SharedOptions {
	version: string;
	/**
	 * The tools a caller gets unless its transport gives it others (the command's scope, a `selectTools`); left out:
	 * the catalogue's default toolsets.
	 */
	tools?: readonly CatalogueTool[];
	/** The catalogue's operations; left out: the catalogue (a test passes a changed copy). */
	operations?: readonly CatalogueOperation[];
	/**
	 * Where downloads above the inline limit are kept for resources/read, each caller's apart: one per process, shared by
	 * every session and request (a link handed out in one HTTP request is read in the next).
	 */
	links: FileLinks;
	/** Where tasks are kept (read and cancelled by later requests): one per process, like links. Left out: one in memory. */
	tasks?: TaskStore;
	/**
	 * Whether to ask the user, through the client's form elicitation, before a call no operation can undo or an
	 * administrative write (the catalogue's `needsConfirmation`). On unless turned off; a client without
	 * elicitation runs the tool as asked, its annotations telling it what the tool does.
	 */
	confirm?: boolean;
	/** Whether tools/list shows each tool's outputSchema (on unless false: --no-output-schemas). */
	outputSchemas?: boolean;
}

export interface SharedParts {
	version: string;
	/** Every tool of the catalogue, by name: a call of one the caller's tools leave out is refused for its scope. */
	catalogue: ReadonlyMap<string, CatalogueTool>;
	/** The tools of the process's scope. */
	tools: readonly CatalogueTool[];
	links: FileLinks;
	tasks: TaskStore;
	confirm: boolean;
	outputSchemas: boolean;
}

export function sharedParts(options: SharedOptions): SharedParts {
	const all = catalogueTools(options.operations);
	return {
		version: options.version,
		catalogue: new Map(all.map((tool) => [tool.name, tool])),
		tools: options.tools ?? selectTools(all),
		links: options.links,
		tasks: options.tasks ?? new ToolTasks(),
		confirm: options.confirm !== false,
		outputSchemas: options.outputSchemas !== false,
	};
}

/** Who calls: the workspace its calls run in, the tools its access gives, and whose tasks and links it reads. */
export interface Caller {
	/** The executor of the caller's workspace (workspace.ts): one per workspace token, shared by its callers. */
	executor: Executor;
	/**
	 * The tools the caller's access gives: the process's (shared.tools, the command's scope), or its own scope's
	 * (`selectTools([...shared.catalogue.values()], scope)`). Never left to a default: a caller gets what it is given.
	 */
	tools: readonly CatalogueTool[];
	/**
	 * Whose tasks and file links its requests start and read (calls/taskOwner.ts); another owner's are not found. What
	 * stays the same for the caller across its requests: the client's secret, a connection, a grant (not a token that
	 * is replaced on refresh, which would lose its tasks).
	 */
	owner: string;
}

/** One caller's server: everything its tools/list, tools/call, resources, prompts and tasks read. */
export interface ServerParts extends CallParts {
	version: string;
	tools: readonly CatalogueTool[];
	owner: string;
	links: OwnedLinks;
	tasks: TaskStore;
	outputSchemas: boolean;
}

export function callerParts(shared: SharedParts, caller: Caller): ServerParts {
	return {
		version: shared.version,
		executor: caller.executor,
		tools: caller.tools,
		byName: new Map(caller.tools.map((tool) => [tool.name, tool])),
		catalogue: shared.catalogue,
		owner: caller.owner,
		links: shared.links.of(caller.owner),
		tasks: shared.tasks,
		confirm: shared.confirm,
		outputSchemas: shared.outputSchemas,
	};
}

/** One server's options (createServer's): a process of one caller. */
export interface ServerOptions extends Omit<SharedOptions, 'links'> {
	executor: Executor;
	/** Left out: the server's own. */
	links?: FileLinks;
	/** Whose tasks and links this server's requests start and read (see calls/taskOwner.ts); left out: the anonymous caller's. */
	taskOwner?: string;
}

/** A server's parts from its options, each left out taking its default. */
export function serverParts(options: ServerOptions): ServerParts {
	const links = options.links ?? new FileLinks({ timing: options.executor.timing });
	const shared = sharedParts({ ...options, links });
	return callerParts(shared, { executor: options.executor, tools: shared.tools, owner: options.taskOwner ?? taskOwnerOf(undefined) });
}

/** What a way of serving takes besides the executor: the options every server it makes shares. */
export interface ServeOptions {
	/** The tools of the session (a scope's `selectTools`). */
	tools?: readonly CatalogueTool[];
	/** Whether to ask the user before irreversible and administrative calls (see `SharedOptions.confirm`). */
	confirm?: boolean;
	/** The process's file links (see `SharedOptions.links`): every session and request of the process shares them. */
	links?: FileLinks;
	/** Whether tools/list shows each tool's outputSchema (false: --no-output-schemas). */
	outputSchemas?: boolean;
}

/** A tool as tools/list shows it. */
function listedTool(tool: CatalogueTool, outputSchemas: boolean) {
	const { name, title, description, inputSchema, outputSchema, annotations } = tool;
	return {
		name,
		title,
		description,
		inputSchema,
		...(outputSchemas ? { outputSchema } : {}),
		annotations,
		...(runsAsTask(tool) ? { execution: { taskSupport: 'optional' as const } } : {}),
	};
}

/** The caller's tools as tools/list shows them. */
export const listedTools = (parts: Pick<ServerParts, 'tools' | 'outputSchemas'>) =>
	parts.tools.map((tool) => listedTool(tool, parts.outputSchemas));
