/*
 * Editor side of the Chat Messaging nodes (runs in the Node-RED editor, in the browser).
 * scripts/node-red-editor.ts transpiles this file into nodes-red/index.html after the catalogue
 * metadata (`CHAT_MESSAGING_CATALOGUE`: operations, fields, validation patterns and defaults, all
 * generated from api/) and the edit templates generated from it. A plain script (no imports): the
 * editor loads it inline, without a bundler; editor-env.d.ts types what the editor provides.
 */
(function () {
	'use strict';
	type Catalogue = Window['CHAT_MESSAGING_CATALOGUE'];
	type Operation = Catalogue['resources'][number]['operations'][number];
	type Field = Operation['fields'][number];
	interface Typed {
		value: string;
		type: string;
	}
	interface ActionNode {
		name?: string;
		resource: string;
		operation: string;
		fields?: Record<string, Typed>;
		attachment?: Typed;
	}
	interface EventNode {
		name?: string;
		events?: string[];
	}
	interface ConfigNode {
		name?: string;
		baseUrl?: string;
	}

	const CATALOGUE = window.CHAT_MESSAGING_CATALOGUE;
	const COLOR = '#5fc29a';
	const SOURCES = ['msg', 'flow', 'global', 'env', 'jsonata'];
	/** The catalogue's validation patterns per field kind (api/validation.ts). */
	const pattern = (kind: string): RegExp | undefined => (CATALOGUE.patterns[kind] ? new RegExp(CATALOGUE.patterns[kind], 'i') : undefined);
	const URL_PATTERN = pattern('url');
	const INTEGER_PATTERN = pattern('integer');

	const operationsById: Record<string, Operation> = {};
	for (const resource of CATALOGUE.resources) {
		for (const op of resource.operations) operationsById[op.id] = op;
	}

	/** Values coming from msg/flow/global/env/JSONata are known only at run time: never block them. */
	const isDynamic = (type: string): boolean => SOURCES.includes(type);

	/** The typedInput types of a field, by what it holds; the first is the default. */
	function typesFor(field: Field): Array<string | TypedInputType> {
		switch (field.kind) {
			case 'integer':
				return ['num', 'str', ...SOURCES];
			case 'boolean':
				return [
					{
						value: 'boolean',
						label: 'true/false',
						icon: 'red/images/typedInput/bool.svg',
						options: [{ value: '', label: '(not set)' }, 'true', 'false'],
					},
					...SOURCES,
				];
			case 'options':
				return [
					{
						value: 'select',
						label: 'option',
						icon: 'fa fa-list',
						options: [{ value: '', label: '(not set)' }, ...(field.options ?? []).map((o) => ({ value: o.value, label: o.name }))],
					},
					...SOURCES,
				];
			case 'stringList':
				return ['str', 'json', ...SOURCES];
			case 'dateTime':
				return ['str', 'date', ...SOURCES];
			case 'binary':
				return ['msg', 'flow', 'global', 'bin', 'jsonata'];
			default:
				return ['str', ...SOURCES];
		}
	}

	/** The value a new (never saved) field starts with: the descriptor's default, else empty. */
	function initialValue(field: Field): Typed {
		const first = typesFor(field)[0] ?? 'str';
		const type = typeof first === 'string' ? first : first.value;
		if (field.default === undefined) return { value: '', type };
		return { value: Array.isArray(field.default) ? field.default.join(', ') : String(field.default), type };
	}

	/** Checks one static value against its field's rules; returns an error message or null. */
	function checkStatic(field: Field, value: string, type: string): string | null {
		if (value === '' || value === undefined || isDynamic(type)) return null;
		const label = field.displayName;
		const text = String(value).trim();
		if (field.kind === 'integer' && (type === 'num' || type === 'str')) {
			if (INTEGER_PATTERN && !INTEGER_PATTERN.test(text)) return `${label}: a whole number`;
			const n = Number(value);
			if (field.min !== undefined && n < field.min) return `${label}: at least ${field.min}`;
			if (field.max !== undefined && n > field.max) return `${label}: at most ${field.max}`;
		}
		if (type !== 'str') return null;
		const rule = pattern(field.kind);
		if (rule && !rule.test(text)) return `${label}: ${CATALOGUE.hints[field.kind]}`;
		if (field.kind === 'dateTime' && isNaN(Date.parse(String(value)))) return `${label}: ${CATALOGUE.hints.dateTime}`;
		return null;
	}

	const rowId = (op: Operation, field: Field): string => `node-input-cm-${op.resource}-${op.operation}-${field.name}`;
	const isUrl = (value: unknown): boolean => !URL_PATTERN || URL_PATTERN.test(String(value ?? '').trim());

	RED.nodes.registerType<ConfigNode>('chat-messaging-config', {
		category: 'config',
		defaults: {
			name: { value: '' },
			baseUrl: { value: '', required: true, validate: (v: string) => isUrl(v) || 'Service URL: an http(s) URL' },
			publicUrl: { value: '', validate: (v: string) => !v || isUrl(v) || 'Public URL: an http(s) URL' },
		},
		credentials: { token: { type: 'password', required: true } },
		label: function () {
			return this.name || this.baseUrl || 'chat messaging';
		},
	});

	RED.nodes.registerType<ActionNode>('chat-messaging', {
		category: CATALOGUE.category,
		color: COLOR,
		icon: 'chat-messaging.svg',
		paletteLabel: 'chat messaging',
		inputs: 1,
		outputs: 1,
		defaults: {
			name: { value: '' },
			config: { value: '', type: 'chat-messaging-config', required: true },
			resource: { value: 'message', required: true },
			operation: {
				value: 'sendToChat',
				required: true,
				validate: function (v: string) {
					return !!operationsById[`${this.resource}:${v}`] || 'Choose an operation';
				},
			},
			fields: {
				value: {},
				validate: function (v: Record<string, Typed> | undefined) {
					const op = operationsById[`${this.resource}:${this.operation}`];
					if (!op || !v) return true;
					const errors: string[] = [];
					for (const field of op.fields) {
						const typed = v[field.name];
						const problem = typed && checkStatic(field, typed.value, typed.type);
						if (problem) errors.push(problem);
					}
					return errors.length ? errors : true;
				},
			},
			outputMode: { value: 'array' },
			payloadFields: { value: false },
			// LIST_DEFAULTS of api/defaults.ts, as n8n shows them; saved flows keep the value they hold.
			returnAll: { value: CATALOGUE.listDefaults.returnAll },
			limit: {
				value: CATALOGUE.listDefaults.limit,
				validate: (v: unknown) =>
					v === '' || v === undefined || (/^\d+$/.test(String(v)) && Number(v) >= 1) || 'Limit: a whole number of at least 1',
			},
			attachment: { value: { value: '', type: 'msg' } },
			attachmentName: { value: '' },
			waitFor: { value: '' },
			waitTimeout: {
				value: 60,
				validate: (v: unknown) => v === '' || v === undefined || Number(v) > 0 || 'Wait timeout: seconds, more than 0',
			},
		},
		label: function () {
			const op = operationsById[`${this.resource}:${this.operation}`];
			return this.name || (op ? op.action : 'chat messaging');
		},
		labelStyle: function () {
			return this.name ? 'node_label_italic' : '';
		},
		oneditprepare: function () {
			const saved = this.fields || {};
			const prepared: Record<string, boolean> = {};
			const $resource = $('#node-input-resource');
			const $operation = $('#node-input-operation');

			for (const resource of CATALOGUE.resources) $('<option>').val(resource.key).text(resource.name).appendTo($resource);
			$resource.val(operationsById[`${this.resource}:${this.operation}`] ? this.resource : 'message');

			/** typedInputs are created when an operation is first shown: some 200 at once would be slow. */
			const prepareOperation = (op: Operation): void => {
				if (prepared[op.id]) return;
				prepared[op.id] = true;
				for (const field of op.fields) {
					const $input = $(`#${rowId(op, field)}`);
					// Saved values carry over between operations sharing a wire name (chat_id, text, ...).
					const stored = saved[field.name];
					const value = stored && typeof stored === 'object' ? stored : initialValue(field);
					$input.val(value.value);
					$input.typedInput({ types: typesFor(field), default: value.type });
					$input.typedInput('type', value.type);
					$input.typedInput('value', value.value);
				}
			};

			const fillOperations = (): void => {
				const resource = CATALOGUE.resources.find((r) => r.key === $resource.val());
				if (!resource) return;
				const current = $operation.val() || this.operation;
				$operation.empty();
				for (const op of resource.operations) $('<option>').val(op.operation).text(op.name).attr('title', op.action).appendTo($operation);
				const keep = resource.operations.some((op) => op.operation === current);
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
				$('.cm-list-only').toggle(op.effect === 'read');
				$('.cm-paginated-only').toggle(op.paginated);
				$('.cm-send-only').toggle(op.sendsMessage);
				$('#node-input-returnAll').trigger('change');
			};

			$resource.on('change', fillOperations);
			$operation.on('change', showOperation);
			$('#node-input-returnAll').on('change', function () {
				$('.cm-limit-row').toggle(!$(this).is(':checked'));
			});
			const attachment = this.attachment && typeof this.attachment === 'object' ? this.attachment : { value: '', type: 'msg' };
			const $attachment = $('#node-input-cm-attachment');
			$attachment.typedInput({ types: ['msg', 'flow', 'global', 'str', 'bin', 'jsonata', 'env'], default: attachment.type });
			$attachment.typedInput('type', attachment.type);
			$attachment.typedInput('value', attachment.value);
			$operation.val(this.operation);
			fillOperations();
		},
		oneditsave: function () {
			const op = operationsById[`${$('#node-input-resource').val()}:${$('#node-input-operation').val()}`];
			const fields: Record<string, Typed> = {};
			if (op) {
				for (const field of op.fields) {
					const $input = $(`#${rowId(op, field)}`);
					fields[field.name] = { value: $input.typedInput('value'), type: $input.typedInput('type') };
				}
			}
			this.fields = fields;
			const $attachment = $('#node-input-cm-attachment');
			this.attachment = { value: $attachment.typedInput('value'), type: $attachment.typedInput('type') };
		},
	});

	RED.nodes.registerType<EventNode>('chat-messaging-event', {
		category: CATALOGUE.category,
		color: COLOR,
		icon: 'chat-messaging.svg',
		paletteLabel: 'chat event',
		inputs: 0,
		outputs: 1,
		defaults: {
			name: { value: '' },
			config: { value: '', type: 'chat-messaging-config', required: true },
			events: {
				value: ['message:received:new'],
				validate: (v: unknown) => (Array.isArray(v) && v.length > 0) || 'Choose at least one event type',
			},
			downloadAttachments: { value: false },
		},
		label: function () {
			return this.name || (Array.isArray(this.events) && this.events.length ? this.events.join(', ') : 'chat event');
		},
		labelStyle: function () {
			return this.name ? 'node_label_italic' : '';
		},
		oneditprepare: function () {
			const chosen = Array.isArray(this.events) ? this.events : [];
			$('.cm-event-type').each(function () {
				$(this).prop('checked', chosen.includes($(this).val()));
			});
		},
		oneditsave: function () {
			this.events = $('.cm-event-type:checked')
				.map(function () {
					return $(this).val();
				})
				.get();
		},
	});
})();
