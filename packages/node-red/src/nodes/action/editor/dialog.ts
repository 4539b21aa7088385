/**
 * The action node's dialog: Resource and Operation, each operation's typedInputs (created when it is first shown),
 * what shows for the chosen operation (Output, Messages, the send's settings), and what Done saves.
 */
import type { EditorNodeInstance } from 'node-red';
import { CATALOGUE, operationsById, type Operation, type Typed } from '../../../editor/catalogue';
import { showOperationHelp } from '../../../editor/help-sidebar';
import { showMigrated } from '../../../editor/migrations';
import { togglePicker } from '../../../editor/picker';
import { initialValue, OPTIONAL_MSG, typedInput, typesFor } from '../../../editor/typed-inputs';
import type { ActionProps } from './properties';
import { DEFAULT_SEND_TO, fieldApplies, rowId, SEND_TARGET_OPERATIONS } from './send';

type ActionNode = EditorNodeInstance<ActionProps>;

export function prepareActionDialog(node: ActionNode): void {
	showMigrated('chat-messaging', node);
	const saved = node.fields || {};
	const prepared: Record<string, boolean> = {};
	const $resource = $('#node-input-resource');
	const $operation = $('#node-input-operation');

	for (const resource of CATALOGUE.resources) $('<option>').val(resource.key).text(resource.name).appendTo($resource);
	$resource.val(operationsById[`${node.resource}:${node.operation}`] ? node.resource : 'message');

	/** typedInputs are created when an operation is first shown: some 200 at once would be slow. */
	const prepareOperation = (op: Operation): void => {
		if (prepared[op.id]) return;
		prepared[op.id] = true;
		for (const field of op.fields) {
			const $input = $(`#${rowId(op, field)}`);
			// Saved values carry over between operations sharing a wire name (chat_id, text, ...).
			const stored = saved[field.name];
			const value = stored && typeof stored === 'object' ? stored : initialValue(field);
			typedInput($input, typesFor(field), value);
		}
		const $op = $(`#cm-op-${op.resource}-${op.operation}`);
		// The optional section starts open when a saved flow set one of its fields.
		const optionalSet = op.fields.some((field) => {
			const stored = saved[field.name];
			return !!stored && stored.value !== '' && $op.find(`.cm-optional-body .cm-field-row[data-field="${field.name}"]`).length > 0;
		});
		$op.find('.cm-optional').toggleClass('cm-open', optionalSet);
		$op.find('.cm-optional-body').toggle(optionalSet);
		$op.find('.cm-optional-header').on('click', function (event) {
			event.preventDefault();
			const $section = $(this).closest('.cm-optional');
			const opening = !$section.hasClass('cm-open');
			$section.toggleClass('cm-open', opening);
			$section.find('.cm-optional-body').toggle(opening);
		});
		$op.find('.cm-pick').on('click', function () {
			const $row = $(this).closest('.cm-field-row');
			const field = op.fields.find((candidate) => candidate.name === $row.attr('data-field'));
			if (field) togglePicker($row, $(`#${rowId(op, field)}`), field);
		});
	};

	const fillOperations = (): void => {
		const resource = CATALOGUE.resources.find((r) => r.key === $resource.val());
		if (!resource) return;
		const current = $operation.val() || node.operation;
		$operation.empty();
		for (const op of resource.operations) {
			// Send covers the four sends; one stays listed when this node was saved with it.
			if (SEND_TARGET_OPERATIONS.includes(op.id) && !(resource.key === node.resource && op.operation === node.operation)) continue;
			$('<option>').val(op.operation).text(op.name).attr('title', op.action).appendTo($operation);
		}
		const keep = $operation.find(`option[value="${current}"]`).length > 0;
		$operation.val(keep ? current : resource.operations[0]?.operation);
		showOperation();
	};

	const showOperation = (): void => {
		const op = operationsById[`${$resource.val()}:${$operation.val()}`];
		$('.cm-op').hide();
		if (!op) return;
		prepareOperation(op);
		$(`#cm-op-${op.resource}-${op.operation}`).show();
		$('#cm-operation-description').text(op.description);
		// Output: only where the operation returns records, with the fields Simplified keeps.
		$('.cm-records-only').toggle(!!op.simplified);
		$('#cm-output-simplified').text((op.simplified ?? []).join(', '));
		$('#node-input-outputFields').attr('placeholder', (op.simplified ?? []).slice(1, 4).join(', '));
		$('.cm-list-only').toggle(op.effect === 'read');
		$('.cm-paginated-only').toggle(op.paginated);
		$('.cm-send-only').toggle(op.sendsMessage);
		showSendTo();
		$('#node-input-returnAll').trigger('change');
		updateOutputs();
		showOperationHelp(op.id);
	};

	/** One output, or three (result, reply, time-out) for a send that waits for the reply. */
	const updateOutputs = (): void => {
		const op = operationsById[`${$resource.val()}:${$operation.val()}`];
		const waits = !!op && op.sendsMessage && $('#node-input-waitForReply').is(':checked');
		$('.cm-reply-only').toggle(waits);
		$('#node-input-outputs').val(waits ? '3' : '1');
	};
	$('#node-input-waitForReply').on('change', updateOutputs);

	/** Send: the fields of the chosen Send To only. */
	const showSendTo = (): void => {
		const sendTo = String($('#node-input-sendTo').val() || DEFAULT_SEND_TO);
		$('#cm-op-message-send .cm-field-row').each(function () {
			$(this).toggle(
				String($(this).attr('data-send-to') ?? '')
					.split(' ')
					.includes(sendTo),
			);
		});
	};
	$('#node-input-sendTo').on('change', showSendTo);

	const showOutputFields = (): void => {
		$('.cm-output-fields-row').toggle($('#node-input-output').val() === 'selected');
	};
	$('#node-input-output').on('change', showOutputFields);
	showOutputFields();

	$resource.on('change', fillOperations);
	$operation.on('change', showOperation);
	$('#node-input-returnAll').on('change', function () {
		const allPages = $(this).is(':checked');
		$('.cm-limit-row').toggle(!allPages);
		// A page number and "every page" contradict each other: Page shows only while All pages is off.
		$('#cm-operations .cm-field-row[data-field="page"]').toggle(!allPages);
	});
	const attachment = node.attachment && typeof node.attachment === 'object' ? node.attachment : { value: '', type: 'msg' };
	const $attachment = $('#node-input-cm-attachment');
	typedInput($attachment, [OPTIONAL_MSG, 'flow', 'global', 'str', 'bin', 'jsonata', 'env'], attachment);
	$operation.val(node.operation);
	fillOperations();
}

export function saveActionDialog(node: ActionNode): void {
	const op = operationsById[`${$('#node-input-resource').val()}:${$('#node-input-operation').val()}`];
	const fields: Record<string, Typed> = {};
	if (op) {
		const sendTo = String($('#node-input-sendTo').val() || '');
		for (const field of op.fields) {
			if (!fieldApplies(op, field, sendTo)) continue;
			const $input = $(`#${rowId(op, field)}`);
			fields[field.name] = { value: $input.typedInput('value'), type: $input.typedInput('type') };
		}
	}
	node.fields = fields;
	const $attachment = $('#node-input-cm-attachment');
	node.attachment = { value: $attachment.typedInput('value'), type: $attachment.typedInput('type') };
}
