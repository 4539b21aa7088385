/**
 * The action node's help (locales/en-US/index.html, `data-help-name="chat-messaging"`),
 * generated from the catalogue: every operation with its endpoint and fields stays documented in the
 * help sidebar, out of the editor HTML Node-RED loads up front. The action node's help lists the
 * operations by name and shows the details of the selected node's operation only.
 */
import { findOperation, operationId, SEND_TARGETS } from '@chat-messaging/core';
import type { FieldDescriptor, OperationDescriptor, ResourceDescriptor } from '@chat-messaging/core';
import { escapeHtml } from '../../generate/html';
import { editorResources, SEND_DESCRIPTOR } from '../../generate/send';

function fieldHelp(field: FieldDescriptor): string {
	const type = field.kind === 'options' ? (field.options ?? []).map((o) => o.value).join(' | ') : field.kind;
	return `      <dt${field.required ? '' : ' class="optional"'}>${escapeHtml(field.name)} <span class="property-type">${escapeHtml(type)}</span></dt>
      <dd>${escapeHtml(field.displayName)}: ${escapeHtml(field.description)}</dd>`;
}

/**
 * One operation's help, in a block the editor shows only for the selected node's operation
 * (the action node's editor code marks it; the editor's style hides the others).
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

export const actionHelp = (resources: readonly ResourceDescriptor[]): string => `<script type="text/html" data-help-name="chat-messaging">
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
