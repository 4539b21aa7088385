/**
 * What the Node-RED editor gives editor.ts at run time, as far as it uses it: jQuery with the
 * typedInput widget, RED.nodes.registerType, and the catalogue the generated HTML puts on window.
 */
interface Window {
	CHAT_MESSAGING_CATALOGUE: import('./html').EditorCatalogue;
}

interface TypedInputType {
	value: string;
	label?: string;
	icon?: string;
	options?: Array<string | { value: string; label: string }>;
	validate?: (value: string) => boolean;
}

interface JQuery {
	length: number;
	val(): string;
	text(): string;
	find(selector: string): JQuery;
	closest(selector: string): JQuery;
	next(selector?: string): JQuery;
	after(content: JQuery): JQuery;
	append(...content: Array<JQuery | string>): JQuery;
	appendTo(target: JQuery): JQuery;
	remove(): JQuery;
	addClass(name: string): JQuery;
	removeClass(name: string): JQuery;
	toggleClass(name: string, state: boolean): JQuery;
	hasClass(name: string): boolean;
	attr(name: string): string | undefined;
	data(name: string): unknown;
	focus(): JQuery;
	on(event: string, handler: (this: HTMLElement, event: { preventDefault(): void }) => void): JQuery;
	val(value: unknown): JQuery;
	text(value: string): JQuery;
	attr(name: string, value: string): JQuery;
	prop(name: string, value: boolean): JQuery;
	is(selector: string): boolean;
	on(event: string, handler: (this: HTMLElement) => void): JQuery;
	trigger(event: string): JQuery;
	toggle(show: boolean): JQuery;
	show(): JQuery;
	hide(): JQuery;
	empty(): JQuery;
	each(callback: (this: HTMLElement) => void): JQuery;
	map<T>(callback: (this: HTMLElement) => T): { get(): T[] };
	typedInput(options: { types: Array<string | TypedInputType>; default?: string }): JQuery;
	typedInput(method: 'type' | 'value'): string;
	typedInput(method: 'type' | 'value', value: string): JQuery;
}

interface AjaxResult<T> {
	done(callback: (data: T) => void): AjaxResult<T>;
	fail(callback: (xhr: { status: number; responseJSON?: { message?: string } }) => void): AjaxResult<T>;
}

declare const $: {
	(selector: string | HTMLElement, attributes?: Record<string, unknown>): JQuery;
	getJSON<T>(url: string, data: Record<string, unknown>): AjaxResult<T>;
	ajax<T>(options: { url: string; method: string; contentType: string; data: string; dataType?: string }): AjaxResult<T>;
};

/** A node's property in the editor: its initial value and how the editor checks it. */
interface EditorProperty<Node> {
	value: unknown;
	required?: boolean;
	type?: string;
	validate?: (this: Node, value: never) => boolean | string | string[];
}

interface EditorNodeDefinition<Node> {
	category: string;
	color?: string;
	icon?: string;
	paletteLabel?: string;
	inputs?: number;
	outputs?: number;
	defaults: Record<string, EditorProperty<Node>>;
	credentials?: Record<string, { type: string; required?: boolean }>;
	label?: (this: Node) => string;
	labelStyle?: (this: Node) => string;
	outputLabels?: (this: Node, index: number) => string;
	oneditprepare?: (this: Node) => void;
	oneditsave?: (this: Node) => void;
}

/** A node as the editor holds it (RED.nodes.node): its saved properties, validity and known credentials. */
interface EditorNode {
	id: string;
	type: string;
	valid?: boolean;
	credentials?: Record<string, unknown>;
	[property: string]: unknown;
}

declare const RED: {
	nodes: { registerType<Node>(type: string, definition: EditorNodeDefinition<Node>): void; node(id: string): EditorNode | null };
	events?: { on(event: string, handler: (data: { nodes?: EditorNode[] }) => void): void };
	utils: { validatePropertyExpression(value: string): boolean };
	_(key: string): string;
};
