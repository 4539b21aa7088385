/**
 * The editor script of the package's nodes (runs in the Node-RED editor, in the browser): src/generate.ts bundles it
 * into dist/index.html after the catalogue metadata (`window.CHAT_MESSAGING_CATALOGUE`) and before the dialogs.
 * Each node's editor code is in its folder under src/nodes; what they share is in src/editor/.
 */
import { registerActionEditor } from './nodes/action/editor';
import { registerConfigEditor } from './nodes/config/editor';
import { registerEventEditor } from './nodes/event/editor';
import { followSelection } from './editor/help-sidebar';

registerConfigEditor();
followSelection();
registerActionEditor();
registerEventEditor();
