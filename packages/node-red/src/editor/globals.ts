/**
 * What the Node-RED editor gives the editor script at run time: `RED` (typed by @types/node-red's EditorRED, as its
 * documentation asks a node's editor code to declare it) and the catalogue the generated HTML puts on window.
 */
import type { EditorRED } from 'node-red';
import type { EditorCatalogue } from '../generate/catalogue';

declare global {
	const RED: EditorRED;
	interface Window {
		CHAT_MESSAGING_CATALOGUE: EditorCatalogue;
	}
}
