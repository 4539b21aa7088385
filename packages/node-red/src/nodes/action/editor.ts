/**
 * The action node in the editor (runs in the browser, bundled into dist/index.html after the catalogue metadata):
 * its properties with their defaults and checks, its label and outputs; the dialog is editor/dialog.ts.
 */
import { CATALOGUE, COLOR, operationsById, type Typed } from '../../editor/catalogue';
import { checkStatic } from '../../editor/typed-inputs';
import { validator } from '../../editor/validator';
import { prepareActionDialog, saveActionDialog } from './editor/dialog';
import type { ActionProps } from './editor/properties';
import { DEFAULT_SEND_TO, fieldApplies } from './editor/send';

export function registerActionEditor(): void {
	RED.nodes.registerType<ActionProps>('chat-messaging', {
		category: CATALOGUE.category,
		color: COLOR,
		icon: 'chat-messaging.svg',
		paletteLabel: 'chat messaging',
		inputs: 1,
		outputs: 1,
		defaults: {
			name: { value: '' },
			config: { value: '', type: 'chat-messaging-config', required: true },
			// A new node starts on Send (Send To: its first choice, Phone Number); a saved one keeps its operation.
			resource: { value: CATALOGUE.send.resource, required: true },
			operation: {
				value: CATALOGUE.send.operation,
				required: true,
				validate: validator<ActionProps, string>(function (v) {
					return !!operationsById[`${this.resource}:${v}`] || 'Choose an operation';
				}),
			},
			fields: {
				value: {},
				validate: validator<ActionProps, Record<string, Typed> | undefined>(function (v) {
					const op = operationsById[`${this.resource}:${this.operation}`];
					if (!op || !v) return true;
					const errors: string[] = [];
					for (const field of op.fields) {
						if (!fieldApplies(op, field, this.sendTo)) continue;
						const typed = v[field.name];
						const problem = typed && checkStatic(field, typed.value, typed.type);
						if (problem) errors.push(problem);
					}
					return errors.length ? errors : true;
				}),
			},
			outputMode: { value: 'array' },
			// Output of operations that return records: new nodes start as n8n's do; a node saved without it runs Raw.
			output: { value: CATALOGUE.output.default },
			outputFields: {
				value: '',
				validate: validator<ActionProps, unknown>(function (v) {
					const op = operationsById[`${this.resource}:${this.operation}`];
					if (!op?.simplified || this.output !== 'selected') return true;
					const named = String(v ?? '')
						.split(',')
						.some((name) => name.trim() !== '');
					return named || `Fields: ${CATALOGUE.output.fieldsMissing}`;
				}),
			},
			payloadFields: { value: false },
			// LIST_DEFAULTS of packages/core/src/catalogue/defaults.ts, as n8n shows them; saved flows keep the value they hold.
			returnAll: { value: CATALOGUE.listDefaults.returnAll },
			limit: {
				value: CATALOGUE.listDefaults.limit,
				validate: validator<ActionProps, unknown>(
					(v) => v === '' || v === undefined || (/^\d+$/.test(String(v)) && Number(v) >= 1) || 'Limit: a whole number of at least 1',
				),
			},
			attachment: { value: { value: '', type: 'msg' } },
			attachmentName: { value: '' },
			waitFor: { value: '' },
			// Which send runs for operation "send" (packages/core/src/catalogue/send.ts); the four send operations keep working.
			sendTo: { value: DEFAULT_SEND_TO },
			// Send and wait for reply: 3 outputs while on, as the switch node changes its outputs.
			waitForReply: { value: false },
			// New nodes wait an hour as n8n does; a flow saved without the property keeps 300 s (reply.ts beside this file).
			replyTimeout: {
				value: CATALOGUE.waitDefaults.replyTimeout,
				validate: validator<ActionProps, unknown>(
					(v) => v === '' || v === undefined || Number(v) > 0 || 'Reply time-out: seconds, more than 0',
				),
			},
			outputs: { value: 1 },
			waitTimeout: {
				value: CATALOGUE.waitDefaults.waitTimeout,
				validate: validator<ActionProps, unknown>(
					(v) => v === '' || v === undefined || Number(v) > 0 || 'Wait timeout: seconds, more than 0',
				),
			},
		},
		label: function () {
			const op = operationsById[`${this.resource}:${this.operation}`];
			return this.name || (op ? op.action : 'chat messaging');
		},
		labelStyle: function () {
			return this.name ? 'node_label_italic' : '';
		},
		outputLabels: function (index: number) {
			return this.outputs === 3 ? (['result', 'reply', 'no reply (time-out)'][index] ?? '') : '';
		},
		oneditprepare: function () {
			prepareActionDialog(this);
		},
		oneditsave: function () {
			saveActionDialog(this);
		},
	});
}
