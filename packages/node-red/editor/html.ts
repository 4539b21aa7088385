/**
 * The Node-RED editor file (packages/node-red/dist/index.html), generated from the operation catalogue: the
 * catalogue metadata the editor script reads, the edit templates and the help. A function of the
 * catalogue, so a descriptor added in packages/core/src/catalogue/resources (or a fixture one in a test) appears here with no
 * other edit; packages/node-red/scripts/build.ts writes the real one and the UI contract reads it.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import ts from 'typescript';

import {
	changesTarget,
	DEFAULT_OUTPUT,
	DEFAULT_REPLY_TIMEOUT_S,
	DEFAULT_WAIT_TIMEOUT_S,
	EVENT_FILTER_OPTIONS,
	EVENT_TYPES,
	FIELD_KINDS,
	fieldHint,
	INBOX_OPTIONS,
	LIST_DEFAULTS,
	OUTPUT_MODES,
	OUTPUT_WHEN_UNSET,
	outputChoiceProblem,
	recordShape,
	RESOURCES,
	SEND_COMPOSITE,
	SEND_TARGETS,
	operationId,
} from '@chat-messaging/core';
import type { FieldDescriptor, OperationDescriptor, ResourceDescriptor } from '@chat-messaging/core';
import { DEFAULT_EVENT_MODE, DEFAULT_POLL_SECONDS, EVENT_MODES, MIN_POLL_SECONDS } from '../src/eventSettings';

export const CATEGORY = 'chat messaging';

/** Choices of the action and event nodes' own settings: saved flows hold these values (UI contract). */
export const CHOICES = {
	outputMode: [
		{ value: 'array', name: 'one message with the whole list' },
		{ value: 'split', name: 'one message per item' },
	],
	/** Output of operations that return records: the core's choice, as n8n offers it. */
	output: OUTPUT_MODES.map((mode) => ({ value: mode.value, name: mode.name })),
	waitFor: [
		{ value: '', name: 'do not wait (result: queued)' },
		{ value: 'sent', name: 'sent' },
		{ value: 'delivered', name: 'delivered' },
		{ value: 'read', name: 'read' },
	],
	events: EVENT_TYPES.map((event) => ({ value: event.value, name: event.name })),
	eventModes: EVENT_MODES.map((mode) => ({ value: mode.value, name: mode.name })),
};

/** The event node's settings besides its event types: Mode, the poll interval, the event filters and the inbox options (core catalogue). */
export const EVENT_NODE = {
	defaultMode: DEFAULT_EVENT_MODE,
	defaultPollSeconds: DEFAULT_POLL_SECONDS,
	minPollSeconds: MIN_POLL_SECONDS,
	filterOptions: EVENT_FILTER_OPTIONS.map((option) => ({ name: option.name, type: option.type, default: option.default })),
	inboxOptions: INBOX_OPTIONS.map((option) => ({
		name: option.name,
		type: option.type,
		default: option.default,
		minValue: option.minValue,
	})),
};

// ---------------------------------------------------------------------------------------------
// One Send with Send To: the catalogue's composite `message:send` (packages/core/src/catalogue/composites.ts), whose
// node property `sendTo` picks which of the four send descriptors runs; the four stay available for flows saved with them.

/** A send field and the Send To choices that show it; `key` tells apart two fields of one wire name. */
export interface SendRow {
	field: FieldDescriptor;
	sendTo: string[];
	key: string;
}

export function sendRows(): SendRow[] {
	const seen = new Set<string>();
	return SEND_COMPOSITE.fields.map(({ field, variants }) => {
		const key = seen.has(field.name) ? `${field.name}-${variants.join('-')}` : field.name;
		seen.add(field.name);
		return { field, sendTo: [...variants], key };
	});
}

/** The Send composite in the shape the editor lists operations: first in the Message resource. */
export const SEND_DESCRIPTOR: OperationDescriptor = {
	resource: SEND_COMPOSITE.resource,
	operation: SEND_COMPOSITE.operation,
	name: SEND_COMPOSITE.name,
	action: SEND_COMPOSITE.action,
	description: SEND_COMPOSITE.description,
	method: 'POST',
	path: '(by Send To)',
	effect: SEND_COMPOSITE.effect,
	requireOneOf: ['text', 'file_uid'],
	sendsMessage: true,
	fields: sendRows().map((row) => row.field),
};

/** The resources as the editor shows them: Send first among the Message operations. */
export const editorResources = (resources: readonly ResourceDescriptor[]): ResourceDescriptor[] =>
	resources.map((resource) =>
		resource.key === 'message' && !resource.operations.some((op) => op.operation === SEND_DESCRIPTOR.operation)
			? { ...resource, operations: [SEND_DESCRIPTOR, ...resource.operations] }
			: resource,
	);

// ---------------------------------------------------------------------------------------------
// The catalogue metadata the editor needs, embedded as JSON.

/** Where a date alone is read: the configuration node's time zone (see packages/node-red/src/config.ts). */
export const TIME_ZONE_PLACE = "the configuration node's time zone";

/**
 * Each field kind's rule as the editor script checks fixed values with it: the core's table (pattern,
 * hint, message), so the editor refuses what the executor would, with the executor's words.
 */
export const editorKinds = () =>
	Object.fromEntries(
		Object.entries(FIELD_KINDS).map(([kind, rule]) => [
			kind,
			{
				pattern: rule.pattern?.source,
				flags: rule.pattern?.flags,
				hint: rule.hint?.replace('{timeZone}', TIME_ZONE_PLACE),
				message: rule.message,
			},
		]),
	);

/** What the editor script reads as `window.CHAT_MESSAGING_CATALOGUE` (texts are in the message catalogue). */
export function editorCatalogue(resources: readonly ResourceDescriptor[] = RESOURCES) {
	return {
		category: CATEGORY,
		listDefaults: LIST_DEFAULTS,
		/** packages/core/src/catalogue/defaults.ts: what a new node starts with (n8n shows the same). */
		waitDefaults: { waitTimeout: DEFAULT_WAIT_TIMEOUT_S, replyTimeout: DEFAULT_REPLY_TIMEOUT_S },
		choices: CHOICES,
		/**
		 * The Output choice (packages/core/src/catalogue/output.ts): what a new node starts with, what a node saved
		 * before the choice existed shows (and runs with), and the executor's words for Selected Fields without a name.
		 */
		output: {
			default: DEFAULT_OUTPUT,
			whenUnset: OUTPUT_WHEN_UNSET,
			fieldsMissing: outputChoiceProblem({ mode: 'selected' })?.message ?? '',
		},
		kinds: editorKinds(),
		eventNode: EVENT_NODE,
		// The catalogue's Send (packages/core/src/catalogue/composites.ts): what a new action node starts on.
		send: { resource: SEND_COMPOSITE.resource, operation: SEND_COMPOSITE.operation },
		// In packages/core/src/catalogue/send.ts order: the first is DEFAULT_SEND_TO.
		sendTargets: SEND_TARGETS.map((target) => ({ value: target.value, name: target.name, operation: target.operation })),
		resources: editorResources(resources).map((resource) => ({
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
				effect: op.effect,
				paginated: !!op.pagination,
				sendsMessage: !!op.sendsMessage,
				// The fields Simplified keeps, for operations that return records (the core's test); none: no Output choice.
				simplified: recordShape(op)?.simplified,
				fields: op.fields.map((field, index) => ({
					key: op === SEND_DESCRIPTOR ? (sendRows()[index]?.key ?? field.name) : field.name,
					sendTo: op === SEND_DESCRIPTOR ? sendRows()[index]?.sendTo : undefined,
					name: field.name,
					displayName: field.displayName,
					kind: field.kind,
					required: !!field.required,
					default: field.default,
					options: field.options,
					min: field.min,
					max: field.max,
					picker: field.picker,
					triState: field.triState,
				})),
			})),
		})),
	};
}

// ---------------------------------------------------------------------------------------------
// HTML helpers.

export const escapeHtml = (text: unknown): string =>
	String(text ?? '').replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c] ?? c);
/** JSON inside a <script>: `<` escaped so no `</script>` can end it early. */
const scriptJson = (value: unknown): string =>
	JSON.stringify(value)
		.replace(/</g, '\\u003c')
		.replace(/\u2028/g, '\\u2028')
		.replace(/\u2029/g, '\\u2029');

/** A field's key in its operation: the wire name, or for Send a name told apart from a namesake (sendRows). */
const fieldKeyIn = (op: OperationDescriptor, field: FieldDescriptor): string =>
	op === SEND_DESCRIPTOR ? (sendRows().find((row) => row.field === field)?.key ?? field.name) : field.name;
const rowId = (op: OperationDescriptor, field: FieldDescriptor): string =>
	`node-input-cm-${op.resource}-${op.operation}-${fieldKeyIn(op, field)}`;

const sentence = (text: string): string => (/[.!?]$/.test(text) ? text : `${text}.`);

/** A field's help line: its description, then its format rule from the core's table (a widget shows the rest). */
function fieldHelp(op: OperationDescriptor, field: FieldDescriptor): string {
	const parts = [sentence(field.description)];
	const format = field.kind === 'binary' ? 'a Buffer, or {data: Buffer, filename, mimeType}' : fieldHint(field, TIME_ZONE_PLACE);
	if (format) parts.push(`Format: ${sentence(format)}`);
	if (field.kind === 'integer' && (field.min !== undefined || field.max !== undefined)) {
		parts.push(
			`Whole number${field.min !== undefined ? `, at least ${field.min}` : ''}${field.max !== undefined ? `, at most ${field.max}` : ''}.`,
		);
	}
	if (field.options) parts.push(`One of: ${field.options.map((o) => o.value).join(', ')}.`);
	if (op.requireOneOf?.includes(field.name)) parts.push(`Give ${op.requireOneOf.join(' or ')} (or an attachment).`);
	// As packages/node-red/src/action.ts fills empty fields with From payload on.
	parts.push(
		changesTarget(op) && field.in === 'path' ? 'Never read from msg.payload.' : `Empty, with From payload on: msg.payload.${field.name}.`,
	);
	return parts.join(' ');
}

/** `data-i18n` keys of the dialogs: Node-RED fills the elements from locales/en-US/index.json. */
const i18n = (key: string, attribute = ''): string => `data-i18n="${attribute}${key}"`;
/** i18next nests keys at dots and takes a colon for a namespace: `message:sent:new` → `message_sent_new`. */
const messageKey = (value: string): string => value.replace(/[:.]/g, '_') || 'none';
const fieldKey = (op: OperationDescriptor, field: FieldDescriptor): string =>
	`chat-messaging.fields.${op.resource}.${op.operation}.${fieldKeyIn(op, field)}`;

/** Fields every run of the operation needs: the required ones and those of a "give one of" rule (a send's text). */
export const isPrimaryField = (op: OperationDescriptor, field: FieldDescriptor): boolean =>
	!!field.required || !!op.requireOneOf?.includes(field.name);

/** Fields with a pick list (packages/core/src/runtime/lookups.ts, served by packages/node-red/src/admin.ts): the catalogue's `picker`. */
const pickerOf = (field: FieldDescriptor): string | undefined => field.picker;

function fieldRow(op: OperationDescriptor, field: FieldDescriptor): string {
	const marker = field.required ? ' <span class="cm-required" title="required">*</span>' : '';
	const picker = pickerOf(field);
	const width = picker ? 'calc(70% - 40px)' : '70%';
	const pickButton = picker
		? `\n        <button type="button" class="red-ui-button cm-pick" data-picker="${picker}" ${i18n(`chat-messaging.picker.${picker}`, '[title]')}><i class="fa fa-search"></i></button>`
		: '';
	const sendTo =
		op === SEND_DESCRIPTOR
			? ` data-send-to="${escapeHtml(
					sendRows()
						.find((row) => row.field === field)
						?.sendTo.join(' ') ?? '',
				)}"`
			: '';
	return `      <div class="form-row cm-field-row" data-field="${escapeHtml(field.name)}"${sendTo}>
        <label for="${rowId(op, field)}"><span ${i18n(`${fieldKey(op, field)}.label`)}></span>${marker}</label>
        <input type="text" id="${rowId(op, field)}" style="width:${width}" placeholder="${escapeHtml(field.placeholder ?? '')}">${pickButton}
        <div class="cm-field-help" ${i18n(`${fieldKey(op, field)}.help`)}></div>
      </div>`;
}

/**
 * One operation's fields: what it needs first, then the optional ones in a section folded by default
 * (as the core nodes keep advanced settings out of the way); a list's optional fields are its filters.
 */
function operationRows(op: OperationDescriptor): string {
	const primary = op.fields.filter((field) => isPrimaryField(op, field));
	const optional = op.fields.filter((field) => !isPrimaryField(op, field));
	const rows = primary.map((field) => fieldRow(op, field));
	if (optional.length) {
		const title = op.effect === 'read' ? 'filters' : 'options';
		rows.push(`      <div class="cm-optional">
        <div class="form-row cm-optional-toggle"><a href="#" class="cm-optional-header"><i class="fa fa-angle-right"></i> <span ${i18n(`chat-messaging.optional.${title}`)}></span> <span class="cm-optional-count">(${optional.length})</span></a></div>
        <div class="cm-optional-body" style="display:none">
${optional.map((field) => fieldRow(op, field)).join('\n')}
        </div>
      </div>`);
	}
	if (op === SEND_DESCRIPTOR) {
		rows.unshift(`      <div class="form-row">
        ${label('node-input-sendTo', 'fa-location-arrow', 'chat-messaging.label.sendTo')}
        <select id="node-input-sendTo" style="width:70%">
${SEND_TARGETS.map((target) => `          <option value="${escapeHtml(target.value)}" ${i18n(`chat-messaging.sendTo.${target.value}`)}></option>`).join('\n')}
        </select>
      </div>`);
	}
	if (rows.length === 0) rows.push(`      <div class="form-row cm-field-help" ${i18n('chat-messaging.noParameters')}></div>`);
	return `    <div class="cm-op" id="cm-op-${op.resource}-${op.operation}" data-operation="${escapeHtml(operationId(op))}" style="display:none">\n${rows.join('\n')}\n    </div>`;
}

const STYLE = `<style>
  .cm-field-help { margin: 2px 0 0 105px; font-size: 0.85em; color: var(--red-ui-secondary-text-color, #888); }
  .cm-required { color: var(--red-ui-text-color-error, #d00); }
  #cm-operation-description { margin-left: 105px; }
  .cm-optional-header { font-weight: bold; text-decoration: none; }
  .cm-optional-header .fa { transition: transform 0.2s; width: 10px; }
  .cm-optional.cm-open .cm-optional-header .fa { transform: rotate(90deg); }
  .cm-optional-count { font-weight: normal; color: var(--red-ui-secondary-text-color, #888); }
  .cm-pick { margin-left: 4px; }
  .cm-picker { margin: 4px 0 0 105px; width: 70%; border: 1px solid var(--red-ui-secondary-border-color, #ccc); padding: 6px; }
  .cm-picker-search { width: 100%; box-sizing: border-box; }
  .cm-picker-list { list-style: none; margin: 4px 0; padding: 0; max-height: 220px; overflow-y: auto; }
  .cm-picker-list li { padding: 3px 6px; cursor: pointer; }
  .cm-picker-list li:hover { background: var(--red-ui-list-item-background-hover, #eee); }
  .cm-picker-list small, .cm-picker-chosen { color: var(--red-ui-secondary-text-color, #888); }
  .cm-picker-chosen { margin-left: 105px; font-size: 0.85em; }
  .cm-test-result.cm-ok { color: var(--red-ui-text-color-success, #3a3); }
  .cm-test-result.cm-failed { color: var(--red-ui-text-color-error, #d00); }
  /* Per-operation help: the help sidebar shows the selected node's operation only (editor.ts adds its rule). */
  .red-ui-help .cm-help-op { display: none; }
</style>`;

/** A form row's label: its icon, then its text from the message catalogue. */
const label = (forId: string, icon: string, key: string, required = false): string =>
	`<label for="${forId}"><i class="fa ${icon}"></i> <span ${i18n(key)}></span>${required ? ' <span class="cm-required">*</span>' : ''}</label>`;

const configTemplate = `<script type="text/html" data-template-name="chat-messaging-config">
  <div class="form-row">
    ${label('node-config-input-name', 'fa-tag', 'chat-messaging-config.label.name')}
    <input type="text" id="node-config-input-name" placeholder="Chat Messaging">
  </div>
  <div class="form-row">
    ${label('node-config-input-baseUrl', 'fa-globe', 'chat-messaging-config.label.baseUrl', true)}
    <input type="text" id="node-config-input-baseUrl" placeholder="https://api.example.com">
  </div>
  <div class="form-row">
    ${label('node-config-input-token', 'fa-key', 'chat-messaging-config.label.token', true)}
    <input type="password" id="node-config-input-token" autocomplete="off">
  </div>
  <div class="form-row">
    ${label('node-config-input-publicUrl', 'fa-share-square-o', 'chat-messaging-config.label.publicUrl')}
    <input type="text" id="node-config-input-publicUrl" placeholder="https://nodered.example.com">
  </div>
  <div class="form-row">
    ${label('node-config-input-timeZone', 'fa-clock-o', 'chat-messaging-config.label.timeZone')}
    <input type="text" id="node-config-input-timeZone" ${i18n('chat-messaging-config.placeholder.timeZone', '[placeholder]')}>
  </div>
  <div class="form-row">
    <label></label>
    <button type="button" class="red-ui-button" id="node-config-cm-test"><i class="fa fa-plug"></i> <span ${i18n('chat-messaging-config.testConnection')}></span></button>
    <span class="cm-test-result" id="node-config-cm-test-result"></span>
  </div>
  <div class="form-tips" ${i18n('chat-messaging-config.tip', '[html]')}></div>
</script>`;

/** The Name and Service (config node) rows both flow nodes open with. */
const NAME_AND_SERVICE_ROWS = `  <div class="form-row">
    ${label('node-input-name', 'fa-tag', 'chat-messaging.label.name')}
    <input type="text" id="node-input-name">
  </div>
  <div class="form-row">
    ${label('node-input-config', 'fa-cog', 'chat-messaging.label.service')}
    <input type="text" id="node-input-config">
  </div>`;

const selectOptions = (name: 'outputMode' | 'waitFor' | 'output'): string =>
	CHOICES[name]
		.map(
			(choice) =>
				`        <option value="${escapeHtml(choice.value)}" ${i18n(`chat-messaging.${name}.${messageKey(choice.value)}`)}></option>`,
		)
		.join('\n');

const actionTemplate = (resources: readonly ResourceDescriptor[]): string => `<script type="text/html" data-template-name="chat-messaging">
${NAME_AND_SERVICE_ROWS}
  <div class="form-row">
    ${label('node-input-resource', 'fa-cube', 'chat-messaging.label.resource')}
    <select id="node-input-resource" style="width:70%"></select>
  </div>
  <div class="form-row">
    ${label('node-input-operation', 'fa-bolt', 'chat-messaging.label.operation')}
    <select id="node-input-operation" style="width:70%"></select>
  </div>
  <div class="form-row form-tips" id="cm-operation-description"></div>
  <div id="cm-operations">
${editorResources(resources)
	.flatMap((resource) => resource.operations.map(operationRows))
	.join('\n')}
  </div>
  <div class="form-row">
    ${label('node-input-payloadFields', 'fa-sign-in', 'chat-messaging.label.payloadFields')}
    <input type="checkbox" id="node-input-payloadFields" style="width:auto">
    <span ${i18n('chat-messaging.payloadFields.checkbox', '[html]')}></span>
    <div class="cm-field-help" ${i18n('chat-messaging.payloadFields.help')}></div>
  </div>
  <div class="cm-records-only">
    <div class="form-row">
      ${label('node-input-output', 'fa-filter', 'chat-messaging.label.output')}
      <select id="node-input-output" style="width:70%">
${selectOptions('output')}
      </select>
      <div class="cm-field-help"><span ${i18n('chat-messaging.outputHelp.simplified')}></span> <code id="cm-output-simplified"></code></div>
    </div>
    <div class="form-row cm-output-fields-row">
      ${label('node-input-outputFields', 'fa-columns', 'chat-messaging.label.outputFields')}
      <input type="text" id="node-input-outputFields" style="width:70%">
      <div class="cm-field-help" ${i18n('chat-messaging.outputHelp.fields')}></div>
    </div>
  </div>
  <div class="cm-list-only">
    <div class="form-row">
      ${label('node-input-outputMode', 'fa-list', 'chat-messaging.label.outputMode')}
      <select id="node-input-outputMode" style="width:70%">
${selectOptions('outputMode')}
      </select>
    </div>
    <div class="cm-paginated-only">
      <div class="form-row">
        ${label('node-input-returnAll', 'fa-files-o', 'chat-messaging.label.returnAll')}
        <input type="checkbox" id="node-input-returnAll" style="width:auto">
      </div>
      <div class="form-row cm-limit-row">
        ${label('node-input-limit', 'fa-sort-numeric-asc', 'chat-messaging.label.limit')}
        <input type="number" id="node-input-limit" min="1" style="width:100px">
      </div>
    </div>
  </div>
  <div class="cm-send-only">
    <div class="form-row">
      ${label('node-input-cm-attachment', 'fa-paperclip', 'chat-messaging.label.attachment')}
      <input type="text" id="node-input-cm-attachment" style="width:70%" placeholder="msg property, Buffer or URL">
      <div class="cm-field-help" ${i18n('chat-messaging.attachmentHelp')}></div>
    </div>
    <div class="form-row">
      ${label('node-input-attachmentName', 'fa-file-o', 'chat-messaging.label.attachmentName')}
      <input type="text" id="node-input-attachmentName" style="width:70%" placeholder="photo.png">
    </div>
    <div class="form-row">
      ${label('node-input-waitFor', 'fa-hourglass-half', 'chat-messaging.label.waitFor')}
      <select id="node-input-waitFor" style="width:70%">
${selectOptions('waitFor')}
      </select>
    </div>
    <div class="form-row">
      ${label('node-input-waitTimeout', 'fa-clock-o', 'chat-messaging.label.waitTimeout')}
      <input type="number" id="node-input-waitTimeout" min="1" style="width:100px"> <span ${i18n('chat-messaging.label.seconds')}></span>
    </div>
    <div class="form-row">
      ${label('node-input-waitForReply', 'fa-reply', 'chat-messaging.label.waitForReply')}
      <input type="checkbox" id="node-input-waitForReply" style="width:auto">
      <span ${i18n('chat-messaging.waitForReply.checkbox')}></span>
    </div>
    <div class="form-row cm-reply-only">
      ${label('node-input-replyTimeout', 'fa-hourglass-end', 'chat-messaging.label.replyTimeout')}
      <input type="number" id="node-input-replyTimeout" min="1" style="width:100px"> <span ${i18n('chat-messaging.label.seconds')}></span>
      <div class="cm-field-help" ${i18n('chat-messaging.waitForReply.help')}></div>
    </div>
  </div>
  <input type="hidden" id="node-input-outputs">
</script>`;

const inboxRow = (option: (typeof INBOX_OPTIONS)[number]): string =>
	option.type === 'boolean'
		? `  <div class="form-row cm-inbox-row">
    ${label(`node-input-${option.name}`, option.name === 'skipAssigned' ? 'fa-user' : 'fa-clock-o', `chat-messaging-event.label.${option.name}`)}
    <input type="checkbox" id="node-input-${option.name}" style="width:auto">
    <span ${i18n(`chat-messaging-event.inbox.${option.name}.label`)}></span>
    <div class="cm-field-help" ${i18n(`chat-messaging-event.inbox.${option.name}.help`)}></div>
  </div>`
		: `  <div class="form-row cm-inbox-row">
    ${label(`node-input-${option.name}`, option.name === 'burstQuietSeconds' ? 'fa-compress' : 'fa-clock-o', `chat-messaging-event.label.${option.name}`)}
    <input type="number" id="node-input-${option.name}" min="${option.minValue ?? 0}" style="width:100px"> <span ${i18n(`chat-messaging-event.label.${option.unit ?? 'seconds'}`)}></span>
    <div class="cm-field-help" ${i18n(`chat-messaging-event.inbox.${option.name}.help`)}></div>
  </div>`;

const FILTER_ICONS: Record<string, string> = {
	labels: 'fa-tags',
	accountIds: 'fa-mobile',
	chatType: 'fa-users',
	ignoreOwnMessages: 'fa-reply',
};

/** One event filter's row: its widget by type, label and help from the core's descriptor (through the messages). */
const filterRow = (option: (typeof EVENT_FILTER_OPTIONS)[number]): string => {
	const id = `node-input-${option.name}`;
	const widget =
		option.type === 'boolean'
			? `<input type="checkbox" id="${id}" style="width:auto">
    <span ${i18n(`chat-messaging-event.filter.${option.name}.label`)}></span>`
			: option.type === 'options'
				? `<select id="${id}" style="width:70%">
${(option.options ?? []).map((choice) => `      <option value="${escapeHtml(choice.value)}" ${i18n(`chat-messaging-event.filter.${option.name}.${messageKey(choice.value)}`)}></option>`).join('\n')}
    </select>`
				: `<input type="text" id="${id}" placeholder="${escapeHtml(option.placeholder ?? '')}" style="width:70%">`;
	return `  <div class="form-row cm-filter-row">
    ${label(id, FILTER_ICONS[option.name] ?? 'fa-filter', `chat-messaging-event.label.${option.name}`)}
    ${widget}
    <div class="cm-field-help" ${i18n(`chat-messaging-event.filter.${option.name}.help`)}></div>
  </div>`;
};

const eventTemplate = `<script type="text/html" data-template-name="chat-messaging-event">
${NAME_AND_SERVICE_ROWS}
  <div class="form-row">
    ${label('node-input-mode', 'fa-exchange', 'chat-messaging-event.label.mode')}
    <select id="node-input-mode" style="width:70%">
${CHOICES.eventModes.map((mode) => `      <option value="${escapeHtml(mode.value)}" ${i18n(`chat-messaging-event.mode.${mode.value}`)}></option>`).join('\n')}
    </select>
  </div>
  <div class="form-row cm-poll-row">
    ${label('node-input-pollSeconds', 'fa-refresh', 'chat-messaging-event.label.pollSeconds')}
    <input type="number" id="node-input-pollSeconds" min="${MIN_POLL_SECONDS}" style="width:100px"> <span ${i18n('chat-messaging-event.label.seconds')}></span>
    <div class="cm-field-help" ${i18n('chat-messaging-event.pollHelp')}></div>
  </div>
  <div class="form-row">
    <label><i class="fa fa-bell"></i> <span ${i18n('chat-messaging-event.label.events')}></span></label>
    <div style="display:inline-block; width:70%">
${CHOICES.events
	.map(
		(event) =>
			`      <label style="width:auto; display:block"><input type="checkbox" class="cm-event-type" value="${escapeHtml(event.value)}" style="width:auto; margin:0 6px 0 0"><span ${i18n(`chat-messaging-event.events.${messageKey(event.value)}`)}></span> <code>${escapeHtml(event.value)}</code></label>`,
	)
	.join('\n')}
    </div>
  </div>
  <div class="form-row">
    ${label('node-input-downloadAttachments', 'fa-paperclip', 'chat-messaging-event.label.downloadAttachments')}
    <input type="checkbox" id="node-input-downloadAttachments" style="width:auto">
    <span ${i18n('chat-messaging-event.downloadAttachments', '[html]')}></span>
  </div>
${EVENT_FILTER_OPTIONS.map(filterRow).join('\n')}
${INBOX_OPTIONS.map(inboxRow).join('\n')}
  <div class="form-tips cm-webhook-tip" ${i18n('chat-messaging-event.tip', '[html]')}></div>
  <div class="form-tips cm-poll-tip" ${i18n('chat-messaging-event.pollTip', '[html]')}></div>
</script>`;

/**
 * The English texts of the dialogs, written to locales/en-US/index.json: Node-RED serves them in the
 * node set's namespace and fills every `data-i18n` element of the templates with them.
 */
export function editorMessages(resources: readonly ResourceDescriptor[] = RESOURCES) {
	const fields = (op: OperationDescriptor) =>
		Object.fromEntries(op.fields.map((field) => [fieldKeyIn(op, field), { label: field.displayName, help: fieldHelp(op, field) }]));
	return {
		'chat-messaging-config': {
			label: { name: 'Name', baseUrl: 'Service URL', token: 'API token', publicUrl: 'Public URL', timeZone: 'Time zone' },
			placeholder: { timeZone: "e.g. Europe/Berlin; empty: this Node-RED's zone" },
			testConnection: 'Test connection',
			testing: 'Testing…',
			tip:
				'The token is stored as a credential: it is never exported with the flow. <b>Public URL</b> is needed by the event node only: ' +
				'the public HTTPS address at which the service reaches this Node-RED (its HTTP node root is appended).',
		},
		'chat-messaging': {
			label: {
				name: 'Name',
				service: 'Service',
				resource: 'Resource',
				operation: 'Operation',
				payloadFields: 'From payload',
				outputMode: 'Messages',
				output: 'Output',
				outputFields: 'Fields',
				returnAll: 'All pages',
				limit: 'Limit',
				attachment: 'Attachment',
				attachmentName: 'File name',
				waitFor: 'Wait for',
				waitTimeout: 'Wait up to',
				waitForReply: 'Reply',
				replyTimeout: 'Wait for reply',
				sendTo: 'Send To',
				seconds: 'seconds',
			},
			waitForReply: {
				checkbox: "wait for the customer's reply (outputs: result, reply, no reply)",
				help:
					"Output 1: the send's result at once. Output 2: the customer's next message in that chat (msg.payload, the send in msg.sent). " +
					'Output 3: no reply within this time (msg.payload.timedOut).',
			},
			noParameters: 'This operation takes no parameters.',
			optional: { filters: 'Filters', options: 'Optional fields' },
			picker: {
				chat: 'Search the chats of the workspace',
				teammate: 'Choose from the teammates',
				account: 'Choose from the chat-app accounts',
				webhook: 'Choose from the webhook subscriptions',
				file: 'Search the uploaded files',
				invitation: 'Choose from the pending invitations',
				label: 'Choose from the labels in use',
			},
			payloadFields: {
				checkbox: 'fill empty fields from <code>msg.payload.&lt;field&gt;</code>',
				help:
					"Off: only the fields set above are sent. On: a field left empty takes msg.payload's member of the same name " +
					'(chat_id, text, ...), never the target id of a delete, replace, close or remove.',
			},
			attachmentHelp:
				'Optional: a Buffer, {data: Buffer, filename, mimeType}, or a public http(s) URL the service downloads. ' +
				'It is uploaded first and attached via file_uid (2 credits).',
			sendTo: Object.fromEntries(SEND_TARGETS.map((target) => [target.value, target.name])),
			output: Object.fromEntries(CHOICES.output.map((choice) => [messageKey(choice.value), choice.name])),
			outputHelp: {
				simplified: 'Simplified keeps:',
				fields: "Comma-separated field names to output; the record's identifiers always come along.",
			},
			outputMode: Object.fromEntries(CHOICES.outputMode.map((choice) => [messageKey(choice.value), choice.name])),
			waitFor: Object.fromEntries(CHOICES.waitFor.map((choice) => [messageKey(choice.value), choice.name])),
			fields: Object.fromEntries(
				editorResources(resources).map((resource) => [
					resource.key,
					Object.fromEntries(resource.operations.map((op) => [op.operation, fields(op)])),
				]),
			),
		},
		'chat-messaging-event': {
			label: {
				events: 'Events',
				downloadAttachments: 'Attachments',
				mode: 'Mode',
				pollSeconds: 'Poll every',
				seconds: 'seconds',
				minutes: 'minutes',
				skipAssigned: 'Takeover',
				teammateQuietMinutes: 'Teammate wrote',
				burstQuietSeconds: 'Burst',
				labels: 'Labels',
				accountIds: 'Accounts',
				chatType: 'Chats',
				ignoreOwnMessages: 'API sends',
			},
			filter: Object.fromEntries(
				EVENT_FILTER_OPTIONS.map((option) => [
					option.name,
					{
						label: option.displayName,
						help: option.description.replace(/^Whether to s/, 'S'),
						...Object.fromEntries((option.options ?? []).map((choice) => [messageKey(choice.value), choice.name])),
					},
				]),
			),
			events: Object.fromEntries(CHOICES.events.map((event) => [messageKey(event.value), event.name])),
			mode: Object.fromEntries(CHOICES.eventModes.map((mode) => [mode.value, mode.name])),
			pollHelp:
				'Each poll costs one request while nothing is new, plus one per chat with new messages (the service allows about 30 a second).',
			inbox: Object.fromEntries(
				INBOX_OPTIONS.map((option) => [option.name, { label: option.displayName, help: option.description.replace(/^Whether to s/, 'S') }]),
			),
			pollTip:
				'Polling needs no public URL and no webhook subscription: the node reads what is new since its cursor, which is stored in ' +
				'<code>&lt;user dir&gt;/chat-messaging/</code>, so each event is emitted once across redeploys and restarts. ' +
				'The first deploy starts from now.',
			downloadAttachments: 'download into <code>msg.attachments</code> (their links expire after about 15 minutes)',
			tip:
				'On deploy the node subscribes at <code>&lt;public URL&gt;&lt;HTTP node root&gt;/chat-messaging/events/&lt;node id&gt;/&lt;secret&gt;</code> ' +
				'(set the public URL in the service configuration). The subscriptions and their secret outlive redeploys and restarts, ' +
				'so no event is lost meanwhile; they are deleted when the node is removed.',
		},
	};
}

export type EditorCatalogue = ReturnType<typeof editorCatalogue>;

let transpiled: string | undefined;

/** packages/node-red/editor/editor.ts as the browser runs it: types removed, ES2017, still a plain script. */
function editorScript(): string {
	transpiled ??= ts.transpileModule(readFileSync(join(__dirname, 'editor.ts'), 'utf8'), {
		compilerOptions: { target: ts.ScriptTarget.ES2017, module: ts.ModuleKind.None, removeComments: true },
	}).outputText;
	return transpiled;
}

/** The editor file Node-RED serves for the package's nodes (packages/node-red/dist/index.html). */
export function editorHtml(resources: readonly ResourceDescriptor[] = RESOURCES): string {
	return [
		`<!-- Generated by packages/node-red/scripts/build.ts from the operation catalogue (packages/core). Do not edit. -->`,
		STYLE,
		`<script type="text/javascript">window.CHAT_MESSAGING_CATALOGUE = ${scriptJson(editorCatalogue(resources))};</script>`,
		`<script type="text/javascript">\n${editorScript()}</script>`,
		configTemplate,
		actionTemplate(resources),
		eventTemplate,
		'',
	].join('\n\n');
}
