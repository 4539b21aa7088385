/**
 * The slice of Node-RED's runtime API these nodes use. Written out here rather than depending on
 * @types/node-red, so the package ships with axios as its only dependency and type-checks offline.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';

export type NodeMessage = Record<string, unknown> & { _msgid?: string; payload?: unknown };

export interface NodeStatus {
	fill?: 'red' | 'green' | 'yellow' | 'blue' | 'grey';
	shape?: 'ring' | 'dot';
	text?: string;
}

export type SendFunction = (msg: NodeMessage | NodeMessage[] | Array<NodeMessage | NodeMessage[] | null> | null) => void;
export type DoneFunction = (error?: Error) => void;

export interface NodeInstance {
	id: string;
	type: string;
	name?: string;
	credentials?: Record<string, string | undefined>;
	on(event: 'input', listener: (msg: NodeMessage, send: SendFunction, done: DoneFunction) => void | Promise<void>): void;
	on(event: 'close', listener: (removed: boolean, done: () => void) => void): void;
	send(msg: NodeMessage | NodeMessage[] | null): void;
	status(status: NodeStatus | Record<string, never>): void;
	log(message: unknown): void;
	warn(message: unknown): void;
	error(message: unknown, msg?: NodeMessage): void;
}

/** Properties as saved by the editor (`defaults`), plus `id`, `type`, `name`. */
export type NodeDefinition = Record<string, unknown> & { id: string; type: string; name?: string };

export interface HttpRequest extends IncomingMessage {
	params: Record<string, string>;
	query?: Record<string, unknown>;
	body?: unknown;
}

export interface HttpResponse extends ServerResponse {
	status(code: number): HttpResponse;
	json(body: unknown): HttpResponse;
	send(body?: unknown): HttpResponse;
}

export type HttpHandler = (req: HttpRequest, res: HttpResponse) => void;
/** An Express middleware, such as RED.auth.needsPermission(...). */
export type HttpMiddleware = (req: HttpRequest, res: HttpResponse, next: () => void) => void;

export interface HttpApp {
	post(path: string, handler: HttpHandler): void;
	post(path: string, middleware: HttpMiddleware, handler: HttpHandler): void;
	get(path: string, middleware: HttpMiddleware, handler: HttpHandler): void;
}

export interface NodeAPI {
	nodes: {
		createNode(node: NodeInstance, definition: NodeDefinition): void;
		registerType(
			type: string,
			constructor: (this: NodeInstance, definition: NodeDefinition) => void,
			options?: { credentials?: Record<string, { type: 'text' | 'password' }> },
		): void;
		getNode(id: string): NodeInstance | null;
	};
	util: {
		evaluateNodeProperty(
			value: unknown,
			type: string,
			node: NodeInstance,
			msg: NodeMessage,
			callback: (error: Error | null, result?: unknown) => void,
		): void;
		cloneMessage<T>(msg: T): T;
		generateId(): string;
	};
	settings: { httpNodeRoot?: string | false } & Record<string, unknown>;
	httpNode: HttpApp;
	/** The editor's admin API app; absent in some test set-ups. */
	httpAdmin?: HttpApp;
	auth?: { needsPermission(permission: string): HttpMiddleware };
}
