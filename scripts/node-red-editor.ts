/**
 * The Node-RED editor file (nodes-red/index.html), generated from the operation catalogue: the
 * catalogue metadata the editor script reads, the edit templates and the help. A function of the
 * catalogue, so a descriptor added in api/resources (or a fixture one in a test) appears here with no
 * other edit; scripts/build-node-red.ts writes the real one and the UI contract reads it.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import ts from 'typescript';

import {
	EMAIL_PATTERN,
	EVENT_TYPES,
	INTEGER_TEXT,
	JID_PATTERN,
	LIST_DEFAULTS,
	PHONE_FILTER_PATTERN,
	PHONE_PATTERN,
	RESOURCES,
	operationId,
} from '../api';
import type { FieldDescriptor, OperationDescriptor, ResourceDescriptor } from '../api';

export const CATEGORY = 'chat messaging';

/** Choices of the action and event nodes' own settings: saved flows hold these values (UI contract). */
export const CHOICES = {
	outputMode: [
		{ value: 'array', name: 'one message with the whole list' },
		{ value: 'split', name: 'one message per item' },
	],
	waitFor: [
		{ value: '', name: 'do not wait (result: queued)' },
		{ value: 'sent', name: 'sent' },
		{ value: 'delivered', name: 'delivered' },
		{ value: 'read', name: 'read' },
	],
	events: EVENT_TYPES.map((event) => ({ value: event.value, name: event.name })),
};

// ---------------------------------------------------------------------------------------------
// The catalogue metadata the editor needs, embedded as JSON.

/** Validation hints per field kind: the same rules api/validation.ts enforces at run time. */
const HINTS: Record<string, string> = {
	phone: 'international format with country code, digits only, optional leading + (no spaces, dashes or brackets)',
	phoneFilter: 'digits with an optional leading +',
	jid: '<id>@<server>, e.g. 4915112345678@c.us',
	wid: '<id>@<server>, e.g. 4915112345678@c.us',
	email: 'an email address',
	url: 'an http(s) URL',
	dateTime: 'a date-time such as 2026-01-31T09:00:00Z',
	integer: 'a whole number',
	stringList: 'comma-separated values, or a JSON array of strings',
	boolean: 'true or false',
	binary: 'a Buffer, or {data: Buffer, filename, mimeType}',
};
/**
 * Patterns the editor checks fixed values with, per field kind (compiled case-insensitively): the
 * executor's own (api/validation.ts), and for URLs a quick check (the executor parses them).
 */
const PATTERNS: Record<string, string> = {
	phone: PHONE_PATTERN.source,
	phoneFilter: PHONE_FILTER_PATTERN.source,
	jid: JID_PATTERN.source,
	wid: JID_PATTERN.source,
	email: EMAIL_PATTERN.source,
	integer: INTEGER_TEXT.source,
	url: '^https?://\\S+$',
};

/** What the editor script reads as `window.CHAT_MESSAGING_CATALOGUE`. */
export function editorCatalogue(resources: readonly ResourceDescriptor[] = RESOURCES) {
	return {
		category: CATEGORY,
		listDefaults: LIST_DEFAULTS,
		choices: CHOICES,
		hints: HINTS,
		patterns: PATTERNS,
		resources: resources.map((resource) => ({
			key: resource.key,
			name: resource.name,
			description: resource.description,
			operations: resource.operations.map((op) => ({
				id: operationId(op),
				resource: op.resource,
				operation: op.operation,
				name: op.name,
				action: op.action,
				description: op.description,
				method: op.method,
				path: op.path,
				effect: op.effect,
				paginated: !!op.pagination,
				sendsMessage: !!op.sendsMessage,
				requireOneOf: op.requireOneOf,
				fields: op.fields.map((field) => ({
					name: field.name,
					displayName: field.displayName,
					kind: field.kind,
					in: field.in,
					required: !!field.required,
					default: field.default,
					options: field.options,
					allowEmpty: field.allowEmpty,
					min: field.min,
					max: field.max,
					description: field.description,
					placeholder: field.placeholder,
				})),
			})),
		})),
	};
}

// ---------------------------------------------------------------------------------------------
// HTML helpers.

const escapeHtml = (text: unknown): string =>
	String(text ?? '').replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c] ?? c);
/** JSON inside a <script>: `<` escaped so no `</script>` can end it early. */
const scriptJson = (value: unknown): string =>
	JSON.stringify(value)
		.replace(/</g, '\\u003c')
		.replace(/\u2028/g, '\\u2028')
		.replace(/\u2029/g, '\\u2029');

const selectOptions = (choices: ReadonlyArray<{ value: string; name: string }>): string =>
	choices.map((choice) => `        <option value="${escapeHtml(choice.value)}">${escapeHtml(choice.name)}</option>`).join('\n');

const rowId = (op: OperationDescriptor, field: FieldDescriptor): string => `node-input-cm-${op.resource}-${op.operation}-${field.name}`;

const sentence = (text: string): string => (/[.!?]$/.test(text) ? text : `${text}.`);

function fieldHint(op: OperationDescriptor, field: FieldDescriptor): string {
	const parts = [sentence(field.description)];
	// Phone descriptions already spell out the format; booleans and integers show it in their widget.
	if (HINTS[field.kind] && !['boolean', 'integer', 'phone'].includes(field.kind)) parts.push(`Format: ${HINTS[field.kind]}.`);
	if (field.kind === 'integer' && (field.min !== undefined || field.max !== undefined)) {
		parts.push(
			`Whole number${field.min !== undefined ? `, at least ${field.min}` : ''}${field.max !== undefined ? `, at most ${field.max}` : ''}.`,
		);
	}
	if (field.options) parts.push(`One of: ${field.options.map((o) => o.value).join(', ')}.`);
	if (op.requireOneOf?.includes(field.name)) parts.push(`Give ${op.requireOneOf.join(' or ')} (or an attachment).`);
	// As nodes-red/action.ts fills empty fields with From payload on.
	parts.push(
		op.destructive && field.in === 'path' ? 'Never read from msg.payload.' : `Empty, with From payload on: msg.payload.${field.name}.`,
	);
	return parts.join(' ');
}

function operationRows(op: OperationDescriptor): string {
	const rows = op.fields.map((field) => {
		const marker = field.required ? ' <span class="cm-required" title="required">*</span>' : '';
		return `      <div class="form-row cm-field-row" data-field="${escapeHtml(field.name)}">
        <label for="${rowId(op, field)}" title="${escapeHtml(field.description)}">${escapeHtml(field.displayName)}${marker}</label>
        <input type="text" id="${rowId(op, field)}" style="width:70%" placeholder="${escapeHtml(field.placeholder ?? '')}">
        <div class="cm-field-help">${escapeHtml(fieldHint(op, field))}</div>
      </div>`;
	});
	if (rows.length === 0) rows.push('      <div class="form-row cm-field-help">This operation takes no parameters.</div>');
	return `    <div class="cm-op" id="cm-op-${op.resource}-${op.operation}" data-operation="${escapeHtml(operationId(op))}" style="display:none">\n${rows.join('\n')}\n    </div>`;
}

const STYLE = `<style>
  .cm-field-help { margin: 2px 0 0 105px; font-size: 0.85em; color: var(--red-ui-secondary-text-color, #888); }
  .cm-required { color: var(--red-ui-text-color-error, #d00); }
  #cm-operation-description { margin-left: 105px; }
</style>`;

const configTemplate = `<script type="text/html" data-template-name="chat-messaging-config">
  <div class="form-row">
    <label for="node-config-input-name"><i class="fa fa-tag"></i> Name</label>
    <input type="text" id="node-config-input-name" placeholder="Chat Messaging">
  </div>
  <div class="form-row">
    <label for="node-config-input-baseUrl"><i class="fa fa-globe"></i> Service URL <span class="cm-required">*</span></label>
    <input type="text" id="node-config-input-baseUrl" placeholder="https://api.example.com">
  </div>
  <div class="form-row">
    <label for="node-config-input-token"><i class="fa fa-key"></i> API token <span class="cm-required">*</span></label>
    <input type="password" id="node-config-input-token" autocomplete="off">
  </div>
  <div class="form-row">
    <label for="node-config-input-publicUrl"><i class="fa fa-share-square-o"></i> Public URL</label>
    <input type="text" id="node-config-input-publicUrl" placeholder="https://nodered.example.com">
  </div>
  <div class="form-tips">The token is stored as a credential: it is never exported with the flow.
  <b>Public URL</b> is needed by the event node only: the public HTTPS address at which the service reaches this
  Node-RED (its HTTP node root is appended).</div>
</script>`;

/** The Name and Service (config node) rows both flow nodes open with. */
const NAME_AND_SERVICE_ROWS = `  <div class="form-row">
    <label for="node-input-name"><i class="fa fa-tag"></i> Name</label>
    <input type="text" id="node-input-name">
  </div>
  <div class="form-row">
    <label for="node-input-config"><i class="fa fa-cog"></i> Service</label>
    <input type="text" id="node-input-config">
  </div>`;

const actionTemplate = (resources: readonly ResourceDescriptor[]): string => `<script type="text/html" data-template-name="chat-messaging">
${NAME_AND_SERVICE_ROWS}
  <div class="form-row">
    <label for="node-input-resource"><i class="fa fa-cube"></i> Resource</label>
    <select id="node-input-resource" style="width:70%"></select>
  </div>
  <div class="form-row">
    <label for="node-input-operation"><i class="fa fa-bolt"></i> Operation</label>
    <select id="node-input-operation" style="width:70%"></select>
  </div>
  <div class="form-row form-tips" id="cm-operation-description"></div>
  <div id="cm-operations">
${resources.flatMap((resource) => resource.operations.map(operationRows)).join('\n')}
  </div>
  <div class="form-row">
    <label for="node-input-payloadFields"><i class="fa fa-sign-in"></i> From payload</label>
    <input type="checkbox" id="node-input-payloadFields" style="width:auto">
    <span>fill empty fields from <code>msg.payload.&lt;field&gt;</code></span>
    <div class="cm-field-help">${escapeHtml("Off: only the fields set above are sent. On: a field left empty takes msg.payload's member of the same name (chat_id, text, ...), never the target id of a delete, replace, close or remove.")}</div>
  </div>
  <div class="cm-list-only">
    <div class="form-row">
      <label for="node-input-outputMode"><i class="fa fa-list"></i> Output</label>
      <select id="node-input-outputMode" style="width:70%">
${selectOptions(CHOICES.outputMode)}
      </select>
    </div>
    <div class="cm-paginated-only">
      <div class="form-row">
        <label for="node-input-returnAll"><i class="fa fa-files-o"></i> All pages</label>
        <input type="checkbox" id="node-input-returnAll" style="width:auto">
      </div>
      <div class="form-row cm-limit-row">
        <label for="node-input-limit"><i class="fa fa-sort-numeric-asc"></i> Limit</label>
        <input type="number" id="node-input-limit" min="1" style="width:100px">
      </div>
    </div>
  </div>
  <div class="cm-send-only">
    <div class="form-row">
      <label for="node-input-cm-attachment"><i class="fa fa-paperclip"></i> Attachment</label>
      <input type="text" id="node-input-cm-attachment" style="width:70%" placeholder="msg property, Buffer or URL">
      <div class="cm-field-help">${escapeHtml(`Optional: a Buffer, {data: Buffer, filename, mimeType}, or a public http(s) URL the service downloads. It is uploaded first and attached via file_uid (2 credits).`)}</div>
    </div>
    <div class="form-row">
      <label for="node-input-attachmentName"><i class="fa fa-file-o"></i> File name</label>
      <input type="text" id="node-input-attachmentName" style="width:70%" placeholder="photo.png">
    </div>
    <div class="form-row">
      <label for="node-input-waitFor"><i class="fa fa-hourglass-half"></i> Wait for</label>
      <select id="node-input-waitFor" style="width:70%">
${selectOptions(CHOICES.waitFor)}
      </select>
    </div>
    <div class="form-row">
      <label for="node-input-waitTimeout"><i class="fa fa-clock-o"></i> Wait up to</label>
      <input type="number" id="node-input-waitTimeout" min="1" style="width:100px"> seconds
    </div>
  </div>
</script>`;

const eventTemplate = `<script type="text/html" data-template-name="chat-messaging-event">
${NAME_AND_SERVICE_ROWS}
  <div class="form-row">
    <label><i class="fa fa-bell"></i> Events</label>
    <div style="display:inline-block; width:70%">
${CHOICES.events
	.map(
		(event) =>
			`      <label style="width:auto; display:block"><input type="checkbox" class="cm-event-type" value="${escapeHtml(event.value)}" style="width:auto; margin:0 6px 0 0">${escapeHtml(event.name)} <code>${escapeHtml(event.value)}</code></label>`,
	)
	.join('\n')}
    </div>
  </div>
  <div class="form-row">
    <label for="node-input-downloadAttachments"><i class="fa fa-paperclip"></i> Attachments</label>
    <input type="checkbox" id="node-input-downloadAttachments" style="width:auto">
    <span>download into <code>msg.attachments</code> (their links expire after about 15 minutes)</span>
  </div>
  <div class="form-tips">On deploy the node subscribes at <code>&lt;public URL&gt;&lt;HTTP node root&gt;/chat-messaging/events/&lt;node id&gt;/&lt;secret&gt;</code>
  (set the public URL in the service configuration). The subscriptions and their secret outlive redeploys and restarts, so no event is lost
  meanwhile; they are deleted when the node is removed.</div>
</script>`;

// ---------------------------------------------------------------------------------------------
// Help texts.

function fieldHelp(field: FieldDescriptor): string {
	const type = field.kind === 'options' ? (field.options ?? []).map((o) => o.value).join(' | ') : field.kind;
	return `      <dt${field.required ? '' : ' class="optional"'}>${escapeHtml(field.name)} <span class="property-type">${escapeHtml(type)}</span></dt>
      <dd>${escapeHtml(field.displayName)}: ${escapeHtml(field.description)}</dd>`;
}

function operationHelp(op: OperationDescriptor): string {
	const fields = op.fields.length ? `\n    <dl class="message-properties">\n${op.fields.map(fieldHelp).join('\n')}\n    </dl>` : '';
	return `    <h4>${escapeHtml(op.name)} <small><code>${escapeHtml(op.method)} ${escapeHtml(op.path)}</code></small></h4>
    <p>${escapeHtml(op.description)}.</p>${fields}`;
}

const actionHelp = (resources: readonly ResourceDescriptor[]): string => `<script type="text/html" data-help-name="chat-messaging">
  <p>Runs one operation of the Chat Messaging Service API: choose a resource and an operation, then fill in its fields.</p>
  <h3>Inputs</h3>
  <dl class="message-properties">
    <dt class="optional">payload <span class="property-type">object</span></dt>
    <dd>A field left empty in the editor is read from <code>msg.payload.&lt;field name&gt;</code> (the wire names listed
    below), so <code>msg.payload = {chat_id: 5, text: "hi"}</code> into a <i>Message / Send to Chat</i> node sends "hi" to chat 5.
    Every field is a typed input: a fixed value, or <code>msg.</code>, <code>flow.</code>, <code>global.</code>, <code>env</code> or a JSONata expression.</dd>
  </dl>
  <h3>Outputs</h3>
  <dl class="message-properties">
    <dt>payload <span class="property-type">object | array</span></dt>
    <dd>The result (the <code>data</code> of the service's answer). Lists hold every page, or up to <i>Limit</i> items;
    with <i>Output: one message per item</i> each item is sent as its own msg with <code>msg.parts</code> set, so a Join node can rebuild the list (an empty list then sends nothing).
    A send returns <code>{message_uid}</code> (plus <code>file</code> when an attachment was uploaded, and <code>status</code> and
    <code>message</code> when <i>Wait for</i> is set). Other msg properties are kept.</dd>
  </dl>
  <h3>Errors</h3>
  <p>Bad input is reported before any request, naming the field. A failed call goes to Catch nodes with
  <code>msg.error.message</code> (the service's message), <code>msg.error.code</code> and <code>msg.error_code</code> (the service's
  <code>error_code</code>, or <code>input</code>, <code>network</code>/<code>ECONNREFUSED</code>, <code>timeout</code>),
  <code>msg.http_status</code> and <code>msg.chatMessagingError</code> (all details; also <code>msg.error.cause</code> on Node-RED 4.1+).
  The node status shows the code.
  Messages are never sent twice: only requests that cannot duplicate an effect are retried.</p>
  <h3>Details</h3>
${resources
	.map(
		(resource) =>
			`  <h3>${escapeHtml(resource.name)}</h3>\n  <p>${escapeHtml(resource.description)}.</p>\n${resource.operations.map(operationHelp).join('\n')}`,
	)
	.join('\n')}
  <h3>References</h3>
  <ul><li>Event node: <code>chat-messaging-event</code> in the same palette category.</li></ul>
</script>`;

const configHelp = `<script type="text/html" data-help-name="chat-messaging-config">
  <p>The Chat Messaging Service a flow talks to.</p>
  <dl class="message-properties">
    <dt>Service URL <span class="property-type">string</span></dt><dd>Base address of the API, e.g. <code>https://api.example.com</code> (trailing slashes are removed).</dd>
    <dt>API token <span class="property-type">credential</span></dt><dd>Copied from the API integration page of the workspace owner's account. Sent as a bearer token; never logged nor exported.</dd>
    <dt class="optional">Public URL <span class="property-type">string</span></dt><dd>For event nodes: the public HTTPS address at which the service reaches this Node-RED; the HTTP node root is appended.</dd>
  </dl>
  <p>All nodes using one configuration share its connections and its pacing under the service's rate limit.</p>
</script>`;

const eventHelp = `<script type="text/html" data-help-name="chat-messaging-event">
  <p>Emits a message for each webhook event of the chosen types.</p>
  <h3>Outputs</h3>
  <dl class="message-properties">
    <dt>topic <span class="property-type">string</span></dt><dd>The event type: ${CHOICES.events.map((e) => `<code>${escapeHtml(e.value)}</code>`).join(', ')}.</dd>
    <dt>payload <span class="property-type">object</span></dt>
    <dd><code>{event_type, chat_id, chat_name, text, message_uid, unattended, raw}</code>; <code>raw</code> is the delivery as received; a value the delivery does not carry is <code>null</code>.
    Both delivery shapes are accepted: <code>{event_type, data: {...}}</code> and <code>{event_type, chat: {...}, message: {...}}</code>.</dd>
  </dl>
  <h3>Details</h3>
  <p>On deploy the node serves <code>POST &lt;HTTP node root&gt;/chat-messaging/events/&lt;node id&gt;/&lt;secret&gt;</code>, with a random
  secret chosen at each start, and subscribes once per event type at the configuration's <i>Public URL</i> followed by that path.
  Subscriptions left by an earlier run of the same node are reused or deleted; its own are deleted when the node is stopped,
  redeployed or removed. The service signs nothing, so the secret in the URL is what rejects forged calls (401).</p>
  <p>The node answers 200 at once, 400 for a body that is not a JSON event, and drops redeliveries of an event it has
  already emitted (same type and message uid, or event id, or chat id for <code>chat:created</code>; the newest 1000 are remembered).</p>
  <p>The service needs a public HTTPS address: put Node-RED behind a reverse proxy or tunnel and set the Public URL to it.</p>
</script>`;

export type EditorCatalogue = ReturnType<typeof editorCatalogue>;

let transpiled: string | undefined;

/** nodes-red/editor/editor.ts as the browser runs it: types removed, ES2017, still a plain script. */
function editorScript(): string {
	transpiled ??= ts.transpileModule(readFileSync(join(__dirname, '..', 'nodes-red', 'editor', 'editor.ts'), 'utf8'), {
		compilerOptions: { target: ts.ScriptTarget.ES2017, module: ts.ModuleKind.None, removeComments: true },
	}).outputText;
	return transpiled;
}

/** The editor file Node-RED serves for the package's nodes (nodes-red/index.html). */
export function editorHtml(resources: readonly ResourceDescriptor[] = RESOURCES): string {
	return [
		`<!-- Generated by scripts/build-node-red.ts from the operation catalogue (api/). Do not edit. -->`,
		STYLE,
		`<script type="text/javascript">window.CHAT_MESSAGING_CATALOGUE = ${scriptJson(editorCatalogue(resources))};</script>`,
		`<script type="text/javascript">\n${editorScript()}</script>`,
		configTemplate,
		configHelp,
		actionTemplate(resources),
		actionHelp(resources),
		eventTemplate,
		eventHelp,
		'',
	].join('\n\n');
}
