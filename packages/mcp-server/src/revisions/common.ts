/**
 * What both revisions' servers are made of, whichever SDK serves them: who the server is, its options, the parts
 * every server of the process shares (tools, file links, tasks), and the tools as tools/list shows them.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

import type { CatalogueOperation, Executor } from '@chat-messaging/core';
import { runsAsTask } from '../calls/tasks';
import { ToolTasks } from '../calls/taskStore';
import { ownedTasks, taskOwnerOf } from '../calls/taskOwner';
import { FileLinks } from '../resources/fileLinks';
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

export interface ServerOptions {
	executor: Executor;
	version: string;
	/**
	 * The tools this server offers (a scope's `selectTools`); left out: the catalogue's default toolsets, of the
	 * catalogue's operations or of `operations` (a changed copy a test passes).
	 */
	tools?: readonly CatalogueTool[];
	operations?: readonly CatalogueOperation[];
	/**
	 * Where downloads above the inline limit are kept for resources/read: one per process, shared by every session
	 * (a link handed out in one HTTP request is read in the next). Left out: one of this server's own.
	 */
	links?: FileLinks;
	/** Where tasks are kept (read and cancelled by later requests): one per process, like links. Left out: the server's own. */
	tasks?: ToolTasks;
	/**
	 * Whether to ask the user, through the client's form elicitation, before a call no operation can undo or an
	 * administrative write (the catalogue's `needsConfirmation`). On unless turned off; a client without
	 * elicitation runs the tool as asked, its annotations telling it what the tool does.
	 */
	confirm?: boolean;
	/** Whose tasks this server's requests start and read (see calls/taskOwner.ts); left out: the anonymous caller's. */
	taskOwner?: string;
	/** Whether tools/list shows each tool's outputSchema (on unless false: --no-output-schemas). */
	outputSchemas?: boolean;
}

/** What a way of serving takes besides the executor: the options every server it makes shares. */
export interface ServeOptions {
	/** The tools of the session (a scope's `selectTools`). */
	tools?: readonly CatalogueTool[];
	/** Whether to ask the user before irreversible and administrative calls (see `ServerOptions.confirm`). */
	confirm?: boolean;
	/** The process's file links (see `ServerOptions.links`): every session and request of the process shares them. */
	links?: FileLinks;
	/** Whether tools/list shows each tool's outputSchema (false: --no-output-schemas). */
	outputSchemas?: boolean;
}

/** A server's parts from its options, each left out taking its default. */
export function serverParts(options: ServerOptions) {
	const tools = options.tools ?? selectTools(catalogueTools(options.operations));
	const tasks = options.tasks ?? new ToolTasks();
	return {
		tools,
		byName: new Map(tools.map((tool) => [tool.name, tool])),
		confirm: options.confirm !== false,
		links: options.links ?? new FileLinks({ timing: options.executor.timing }),
		tasks,
		ownedTasks: ownedTasks(tasks, options.taskOwner ?? taskOwnerOf(undefined)),
	};
}

/** A tool as tools/list shows it. */
export function listedTool(tool: CatalogueTool, options: Pick<ServerOptions, 'outputSchemas'> = {}) {
	const { name, title, description, inputSchema, outputSchema, annotations } = tool;
	return {
		name,
		title,
		description,
		inputSchema,
		...(options.outputSchemas === false ? {} : { outputSchema }),
		annotations,
		...(runsAsTask(tool) ? { execution: { taskSupport: 'optional' as const } } : {}),
	};
}
