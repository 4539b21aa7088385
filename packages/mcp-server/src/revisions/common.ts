/**
 * What both revisions' servers are made of, whichever SDK serves them: who the server is, its options, the parts
 * every server of the process shares (tools, file links, tasks), and the tools as tools/list shows them.
 */
import type { CatalogueOperation, Executor } from '@chat-messaging/core';
import { runsAsTask } from '../calls/tasks';
import { ToolTasks } from '../calls/taskStore';
import { ownedTasks, taskOwnerOf } from '../calls/taskOwner';
import { FileLinks } from '../resources/fileLinks';
import { selectTools } from '../scopes';
import { catalogueTools, type CatalogueTool } from '../tools';

export const SERVER_NAME = 'chat-messaging';

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
