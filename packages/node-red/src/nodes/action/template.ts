/**
 * The action node's dialog, generated from the catalogue: Resource and Operation, then each operation's fields
 * (what it needs first, the optional ones folded), then the node's own settings (From payload, Output, Messages,
 * the send's attachment and waits).
 */
import { operationId, SEND_TARGETS, type FieldDescriptor, type OperationDescriptor, type ResourceDescriptor } from '@chat-messaging/core';
import { CHOICES } from '../../generate/catalogue';
import { escapeHtml, i18n, label, messageKey } from '../../generate/html';
import { editorResources, fieldKeyIn, SEND_DESCRIPTOR, sendRows } from '../../generate/send';

const rowId = (op: OperationDescriptor, field: FieldDescriptor): string =>
	`node-input-cm-${op.resource}-${op.operation}-${fieldKeyIn(op, field)}`;
export const fieldKey = (op: OperationDescriptor, field: FieldDescriptor): string =>
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

/** The Name and Service (config node) rows both flow nodes open with. */
export const NAME_AND_SERVICE_ROWS = `  <div class="form-row">
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

export const actionTemplate = (
	resources: readonly ResourceDescriptor[],
): string => `<script type="text/html" data-template-name="chat-messaging">
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
