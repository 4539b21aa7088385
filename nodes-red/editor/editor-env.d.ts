/**
 * What the Node-RED editor gives editor.ts at run time, as far as it uses it: jQuery with the
 * typedInput widget, RED.nodes.registerType, and the catalogue the generated HTML puts on window.
 */
interface Window {
	CHAT_MESSAGING_CATALOGUE: import('../../scripts/node-red-editor').EditorCatalogue;
}

interface TypedInputType {
	value: string;
	label?: string;
	icon?: string;
	options?: Array<string | { value: string; label: string }>;
}

interface JQuery {
	val(): string;
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
	appendTo(target: JQuery): JQuery;
	each(callback: (this: HTMLElement) => void): JQuery;
	map<T>(callback: (this: HTMLElement) => T): { get(): T[] };
	typedInput(options: { types: Array<string | TypedInputType>; default?: string }): JQuery;
	typedInput(method: 'type' | 'value'): string;
	typedInput(method: 'type' | 'value', value: string): JQuery;
}

declare function $(selector: string | HTMLElement): JQuery;

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
	oneditprepare?: (this: Node) => void;
	oneditsave?: (this: Node) => void;
}

declare const RED: {
	nodes: { registerType<Node>(type: string, definition: EditorNodeDefinition<Node>): void };
};
