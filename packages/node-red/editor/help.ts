/**
 * The help of the Node-RED nodes (locales/en-US/index.html, one `data-help-name` script per node type),
 * generated from the catalogue: every operation with its endpoint and fields stays documented in the
 * help sidebar, out of the editor HTML Node-RED loads up front. The action node's help lists the
 * operations by name and shows the details of the selected node's operation only.
 */
import { EVENT_FILTER_OPTIONS, findOperation, INBOX_OPTIONS, operationId, RESOURCES, SEND_TARGETS } from '@chat-messaging/core';
import type { FieldDescriptor, OperationDescriptor, ResourceDescriptor } from '@chat-messaging/core';
import { CHOICES, editorResources, escapeHtml, SEND_DESCRIPTOR } from './html';

function fieldHelp(field: FieldDescriptor): string {
	const type = field.kind === 'options' ? (field.options ?? []).map((o) => o.value).join(' | ') : field.kind;
	return `      <dt${field.required ? '' : ' class="optional"'}>${escapeHtml(field.name)} <span class="property-type">${escapeHtml(type)}</span></dt>
      <dd>${escapeHtml(field.displayName)}: ${escapeHtml(field.description)}</dd>`;
}

/**
 * One operation's help, in a block the editor shows only for the selected node's operation
 * (packages/node-red/editor/editor.ts marks it; the editor's style hides the others).
 */
function operationHelp(op: OperationDescriptor): string {
	const fields = op.fields.length ? `\n    <dl class="message-properties">\n${op.fields.map(fieldHelp).join('\n')}\n    </dl>` : '';
	if (op === SEND_DESCRIPTOR) {
		const targets = SEND_TARGETS.map((target) => {
			const sender = findOperation(target.operation);
			return `      <li><b>${escapeHtml(target.name)}</b>: ${escapeHtml(target.description)} (<code>${escapeHtml(sender.method)} ${escapeHtml(sender.path)}</code>)</li>`;
		}).join('\n');
		return `    <div class="cm-help-op" data-operation="${escapeHtml(operationId(op))}">
    <h4>${escapeHtml(op.name)}</h4>
    <p>${escapeHtml(op.description)}. <i>Send To</i> chooses the address:</p>
    <ul>\n${targets}\n    </ul>${fields}
    </div>`;
	}
	return `    <div class="cm-help-op" data-operation="${escapeHtml(operationId(op))}">
    <h4>${escapeHtml(op.name)} <small><code>${escapeHtml(op.method)} ${escapeHtml(op.path)}</code></small></h4>
    <p>${escapeHtml(op.description)}.</p>${fields}
    </div>`;
}

/** The operations of each resource by name: what the node can do, at a glance. */
const operationIndex = (resources: readonly ResourceDescriptor[]): string =>
	`  <ul>\n${resources
		.map(
			(resource) => `    <li><b>${escapeHtml(resource.name)}</b>: ${resource.operations.map((op) => escapeHtml(op.name)).join(', ')}</li>`,
		)
		.join('\n')}\n  </ul>`;

const actionHelp = (resources: readonly ResourceDescriptor[]): string => `<script type="text/html" data-help-name="chat-messaging">
  <p>Runs one operation of the Chat Messaging Service API: choose a resource and an operation, then fill in its fields.</p>
  <h3>Inputs</h3>
  <dl class="message-properties">
    <dt class="optional">payload <span class="property-type">object</span></dt>
    <dd>Every field is a typed input: a fixed value, or <code>msg.</code>, <code>flow.</code>, <code>global.</code>, <code>env</code> or a JSONata expression.
    With <i>From payload</i> on, a field left empty is read from <code>msg.payload.&lt;field name&gt;</code> (the wire names listed
    below), so <code>msg.payload = {chat_id: 5, text: "hi"}</code> into a <i>Message / Send to Chat</i> node sends "hi" to chat 5;
    the target id of a delete, replace, close or remove is never read from it.</dd>
  </dl>
  <h3>Outputs</h3>
  <dl class="message-properties">
    <dt>payload <span class="property-type">object | array</span></dt>
    <dd>The result (the <code>data</code> of the service's answer). Lists hold every page, or up to <i>Limit</i> items;
    with <i>Messages: one message per item</i> each item is sent as its own msg with <code>msg.parts</code> set, so a Join node can rebuild the list (an empty list then sends nothing).
    A send returns <code>{message_uid}</code> (plus <code>file</code> when an attachment was uploaded, and <code>status</code> and
    <code>message</code> when <i>Wait for</i> is set). Other msg properties are kept.
    Operations that return records (chats, messages, files, accounts, teammates) offer <i>Output</i>: <i>Simplified</i> (the fields
    most flows need), <i>Raw</i> (every field the service returns) or <i>Selected Fields</i> (the ones you name); the record's
    identifiers are always kept. A node saved before the choice existed outputs Raw.</dd>
  </dl>
  <p>With <i>Reply: wait for the customer's reply</i> on, a send has three outputs:</p>
  <ol class="node-ports">
    <li>Result<dl class="message-properties"><dt>payload <span class="property-type">object</span></dt><dd>the send's result, at once.</dd></dl></li>
    <li>Reply<dl class="message-properties"><dt>payload <span class="property-type">object</span></dt><dd>the customer's next message in that chat,
    as the event node emits it (<code>{event_type: "message:received:new", chat_id, text, message_uid, ...}</code>); <code>msg.sent</code> holds the send's result.</dd></dl></li>
    <li>No reply<dl class="message-properties"><dt>payload <span class="property-type">object</span></dt><dd><code>{timedOut: true, waitedMs, chat_id, message_uid}</code>
    when nothing came within <i>Wait for reply</i> seconds.</dd></dl></li>
  </ol>
  <p>The node looks for the reply by reading the chat's messages after the sent one (every tenth of the time-out, at least every 2 s and at most every 60 s); no webhook subscription is needed.</p>
  <h3>Errors</h3>
  <p>Bad input is reported before any request, naming the field. A failed call goes to Catch nodes with
  <code>msg.error.message</code> (the service's message), <code>msg.error.code</code> and <code>msg.error_code</code> (the service's
  <code>error_code</code>, or <code>input</code>, <code>network</code>/<code>ECONNREFUSED</code>, <code>timeout</code>),
  <code>msg.http_status</code> and <code>msg.chatMessagingError</code> (all details; also <code>msg.error.cause</code> on Node-RED 4.1+).
  The node status shows the code.
  Messages are never sent twice: only requests that cannot duplicate an effect are retried.</p>
  <h3>Operations</h3>
${operationIndex(editorResources(resources))}
  <h3>Selected operation</h3>
  <p class="cm-help-hint">Select a node on the workspace to see its operation's fields here.</p>
${editorResources(resources)
	.flatMap((resource) => resource.operations.map(operationHelp))
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
    <dt class="optional">Time zone <span class="property-type">string</span></dt><dd>The zone dates are read in, e.g. <code>Europe/Berlin</code>: a date alone such as <code>2026-01-31</code> means midnight there, and a date-time without a zone is its wall time. Empty: the zone this Node-RED runs in. A date-time with <code>Z</code> or an offset is the same instant everywhere.</dd>
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
  <p>On deploy the node serves <code>POST &lt;HTTP node root&gt;/chat-messaging/events/&lt;node id&gt;/&lt;secret&gt;</code> and subscribes
  once per event type at the configuration's <i>Public URL</i> followed by that path. The secret is derived from the token and the node id,
  so the subscriptions outlive redeploys and restarts and no event is lost meanwhile; they are deleted when the node is removed.
  The service signs nothing, so the secret in the URL is what rejects forged calls (401).</p>
  <p>The node answers 200 at once, 503 while it starts or stops (the service retries), 400 for a body that is not a JSON event, and
  drops redeliveries of an event it has already emitted (same type and message uid, or event id, or chat id for <code>chat:created</code>;
  remembered for 15 minutes).</p>
  <p>With <i>Attachments</i> on, the files of an inbound message are downloaded into <code>msg.attachments</code>; a failed download
  does not lose the event.</p>
  <p>The service needs a public HTTPS address: put Node-RED behind a reverse proxy or tunnel and set the Public URL to it.
  Without one, choose <i>Mode: Polling</i>.</p>
  <h3>Polling</h3>
  <p>With <i>Mode: Polling</i> the node needs no public URL and holds no webhook subscription: every <i>Poll every</i> seconds it
  reads what is new since its cursor (one request while nothing is new, plus one per chat with new messages) and emits each event
  once, shaped as a webhook event. The cursor is stored in <code>&lt;user dir&gt;/chat-messaging/</code> (Node-RED's default context
  store is memory), so a redeploy or a restart neither repeats nor skips an event; the first deploy starts from now. A flow saved
  before Mode existed keeps webhook mode.</p>
  <h3>Filters</h3>
  <p>In both modes, the same as the n8n triggers' options; all pass every event by default. A filter that needs the chat or the message
  reads it (one request) when the event lacks it; when that read fails, the event is emitted with <code>msg.filterError</code>.</p>
  <dl class="message-properties">
${EVENT_FILTER_OPTIONS.map((option) => `    <dt class="optional">${escapeHtml(option.displayName)}</dt><dd>${escapeHtml(option.description)}${option.options ? ` (${option.options.map((choice) => escapeHtml(choice.name)).join(', ')})` : ''}</dd>`).join('\n')}
  </dl>
  <h3>Inbox options</h3>
  <p>All off by default, in both modes.</p>
  <dl class="message-properties">
${INBOX_OPTIONS.map((option) => `    <dt class="optional">${escapeHtml(option.displayName)}</dt><dd>${escapeHtml(option.description)}</dd>`).join('\n')}
  </dl>
  <p>A burst comes out as one message: <code>payload.text</code> holds the texts joined by new lines, <code>payload.message_uids</code>
  every uid, <code>payload.messages</code> each event. Held messages are stored with the cursor, so a restart loses none.
  When a takeover lookup fails in webhook mode, the event is emitted with <code>msg.takeoverError</code>.</p>
</script>`;

/** locales/en-US/index.html: the help of the three node types. */
export function editorHelp(resources: readonly ResourceDescriptor[] = RESOURCES): string {
	return [configHelp, actionHelp(resources), eventHelp, ''].join('\n\n');
}
