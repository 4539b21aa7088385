#!/usr/bin/env node
// Assembles dist/node-red/, the @chat-messaging/node-red-chat-messaging package, after scripts/build.mjs
// compiled everything with tsc:
//   api/, nodes-red/          the compiled runtime (copied side by side so `../api` imports keep working)
//   nodes-red/index.html      the editor, generated here from the catalogue (no runtime fetch)
//   nodes-red/icons/          the palette icon
//   examples/, README.md, LICENSE, package.json
import { cpSync, existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const dist = join(root, 'dist');
const out = join(dist, 'node-red');
const source = join(root, 'nodes-red');
const rootPackage = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'));

const PACKAGE_NAME = '@chat-messaging/node-red-chat-messaging';
const CATEGORY = 'chat messaging';

for (const compiled of ['api', 'nodes-red']) {
	if (!existsSync(join(dist, compiled, 'index.js')))
		throw new Error(`dist/${compiled}/index.js is missing: run scripts/build.mjs (tsc) first`);
}
const api = createRequire(import.meta.url)(join(dist, 'api', 'index.js'));

rmSync(out, { recursive: true, force: true });
mkdirSync(out, { recursive: true });
cpSync(join(dist, 'api'), join(out, 'api'), { recursive: true });
cpSync(join(dist, 'nodes-red'), join(out, 'nodes-red'), { recursive: true });
cpSync(join(source, 'icons'), join(out, 'nodes-red', 'icons'), { recursive: true });
cpSync(join(source, 'examples'), join(out, 'examples'), { recursive: true });
cpSync(join(source, 'README.md'), join(out, 'README.md'));
cpSync(join(root, 'LICENSE'), join(out, 'LICENSE'));

// ---------------------------------------------------------------------------------------------
// The catalogue metadata the editor needs, embedded as JSON.

/** Validation hints per field kind: the same rules api/validation.ts enforces at run time. */
const HINTS = {
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
const PATTERNS = {
	phone: api.PHONE_PATTERN.source,
	phoneFilter: '^\\+?\\d{1,15}$',
	jid: api.JID_PATTERN.source,
	wid: api.JID_PATTERN.source,
	email: '^[^\\s@]+@[^\\s@]+\\.[^\\s@]+$',
};

const catalogue = {
	category: CATEGORY,
	hints: HINTS,
	patterns: PATTERNS,
	eventTypes: api.EVENT_TYPES,
	resources: api.RESOURCES.map((resource) => ({
		key: resource.key,
		name: resource.name,
		description: resource.description,
		operations: resource.operations.map((op) => ({
			id: api.operationId(op),
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

// ---------------------------------------------------------------------------------------------
// HTML helpers.

const escapeHtml = (text) =>
	String(text ?? '').replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]);
/** JSON inside a <script>: `<` escaped so no `</script>` can end it early. */
const scriptJson = (value) =>
	JSON.stringify(value)
		.replace(/</g, '\\u003c')
		.replace(/\u2028/g, '\\u2028')
		.replace(/\u2029/g, '\\u2029');

const rowId = (op, field) => `node-input-cm-${op.resource}-${op.operation}-${field.name}`;

const sentence = (text) => (/[.!?]$/.test(text) ? text : `${text}.`);

function fieldHint(op, field) {
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
	parts.push(`Empty: read from msg.payload.${field.name}.`);
	return parts.join(' ');
}

function operationRows(op) {
	const rows = op.fields.map((field) => {
		const marker = field.required ? ' <span class="cm-required" title="required">*</span>' : '';
		return `      <div class="form-row cm-field-row" data-field="${escapeHtml(field.name)}">
        <label for="${rowId(op, field)}" title="${escapeHtml(field.description)}">${escapeHtml(field.displayName)}${marker}</label>
        <input type="text" id="${rowId(op, field)}" style="width:70%" placeholder="${escapeHtml(field.placeholder ?? '')}">
        <div class="cm-field-help">${escapeHtml(fieldHint(op, field))}</div>
      </div>`;
	});
	if (rows.length === 0) rows.push('      <div class="form-row cm-field-help">This operation takes no parameters.</div>');
	return `    <div class="cm-op" id="cm-op-${op.resource}-${op.operation}" data-operation="${escapeHtml(api.operationId(op))}" style="display:none">\n${rows.join('\n')}\n    </div>`;
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

const actionTemplate = `<script type="text/html" data-template-name="chat-messaging">
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
${api.RESOURCES.flatMap((resource) => resource.operations.map(operationRows)).join('\n')}
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
        <option value="array">one message with the whole list</option>
        <option value="split">one message per item</option>
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
        <option value="">do not wait (result: queued)</option>
        <option value="sent">sent</option>
        <option value="delivered">delivered</option>
        <option value="read">read</option>
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
${api.EVENT_TYPES.map(
	(event) =>
		`      <label style="width:auto; display:block"><input type="checkbox" class="cm-event-type" value="${escapeHtml(event.value)}" style="width:auto; margin:0 6px 0 0">${escapeHtml(event.name)} <code>${escapeHtml(event.value)}</code></label>`,
).join('\n')}
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

function fieldHelp(field) {
	const type = field.kind === 'options' ? field.options.map((o) => o.value).join(' | ') : field.kind;
	return `      <dt${field.required ? '' : ' class="optional"'}>${escapeHtml(field.name)} <span class="property-type">${escapeHtml(type)}</span></dt>
      <dd>${escapeHtml(field.displayName)}: ${escapeHtml(field.description)}</dd>`;
}

function operationHelp(op) {
	const fields = op.fields.length ? `\n    <dl class="message-properties">\n${op.fields.map(fieldHelp).join('\n')}\n    </dl>` : '';
	return `    <h4>${escapeHtml(op.name)} <small><code>${escapeHtml(op.method)} ${escapeHtml(op.path)}</code></small></h4>
    <p>${escapeHtml(op.description)}.</p>${fields}`;
}

const actionHelp = `<script type="text/html" data-help-name="chat-messaging">
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
${catalogue.resources
	.map(
		(resource) =>
			`  <h3>${escapeHtml(resource.name)}</h3>\n  <p>${escapeHtml(resource.description)}.</p>\n${api.RESOURCES.find(
				(r) => r.key === resource.key,
			)
				.operations.map(operationHelp)
				.join('\n')}`,
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
    <dt>topic <span class="property-type">string</span></dt><dd>The event type: ${api.EVENT_TYPES.map((e) => `<code>${escapeHtml(e.value)}</code>`).join(', ')}.</dd>
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

const editorScript = readFileSync(join(source, 'editor', 'editor.js'), 'utf8');
const html = [
	`<!-- Generated by scripts/build-node-red.mjs from the operation catalogue (api/). Do not edit. -->`,
	STYLE,
	`<script type="text/javascript">window.CHAT_MESSAGING_CATALOGUE = ${scriptJson(catalogue)};</script>`,
	`<script type="text/javascript">\n${editorScript}</script>`,
	configTemplate,
	configHelp,
	actionTemplate,
	actionHelp,
	eventTemplate,
	eventHelp,
	'',
].join('\n\n');
writeFileSync(join(out, 'nodes-red', 'index.html'), html);

// ---------------------------------------------------------------------------------------------
// package.json

const nodeRedPackage = {
	name: PACKAGE_NAME,
	version: rootPackage.version,
	description: 'Node-RED nodes for the Chat Messaging Service API: every operation, webhook events, and a shared service configuration.',
	keywords: ['node-red', 'chat', 'messaging', 'webhook', 'chat-messaging'],
	license: 'MIT',
	homepage: rootPackage.homepage,
	repository: rootPackage.repository,
	bugs: rootPackage.bugs,
	author: rootPackage.author,
	engines: { node: '>=20' },
	'node-red': {
		version: '>=4.0.0',
		nodes: { 'chat-messaging': 'nodes-red/index.js' },
	},
	dependencies: { axios: rootPackage.devDependencies.axios },
};
writeFileSync(join(out, 'package.json'), `${JSON.stringify(nodeRedPackage, null, 2)}\n`);

const examples = readdirSync(join(out, 'examples')).filter((name) => name.endsWith('.json'));
console.log(
	`built dist/node-red: ${PACKAGE_NAME}@${nodeRedPackage.version}, ${api.OPERATIONS.length} operations in the editor, ${examples.length} examples`,
);
