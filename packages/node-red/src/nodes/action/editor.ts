/*
 * Editor side of the Chat Messaging nodes (runs in the Node-RED editor, in the browser).
 * packages/node-red/editor/html.ts transpiles this file into packages/node-red/dist/index.html after the catalogue
 * metadata (`CHAT_MESSAGING_CATALOGUE`: operations, fields, validation patterns and defaults, all
 * generated from the catalogue in packages/core) and the edit templates generated from it. A plain script (no imports): the
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
		outputs?: number;
		sendTo?: string;
		resource: string;
		operation: string;
		fields?: Record<string, Typed>;
		attachment?: Typed;
		output?: string;
		outputFields?: string;
	}
	interface EventNode {
		name?: string;
		config?: string;
		events?: string[];
		mode?: string;
		pollSeconds?: number | string;
	}
	interface ConfigNode {
		id: string;
		name?: string;
		baseUrl?: string;
		credentials?: Record<string, unknown>;
	}

	const CATALOGUE = window.CHAT_MESSAGING_CATALOGUE;
	const COLOR = '#5fc29a';
	const SOURCES = ['msg', 'flow', 'global', 'env', 'jsonata'];
	/** Each field kind's pattern from the core's table of field kinds (packages/core/src/catalogue/fields.ts). */
	const pattern = (kind: string): RegExp | undefined => {
		const rule = CATALOGUE.kinds[kind];
		return rule?.pattern ? new RegExp(rule.pattern, rule.flags) : undefined;
	};
	/** The error the executor gives for a value its kind refuses: "Chat ID: must be a whole number". */
	const kindError = (label: string, kind: string): string => `${label}: ${CATALOGUE.kinds[kind]?.message ?? 'not valid'}`;
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
				// A filter says what each choice does (Any / Closed / Open); saved values stay '', 'true', 'false'.
				return [
					{
						value: 'boolean',
						label: 'true/false',
						icon: 'red/images/typedInput/bool.svg',
						options: field.triState
							? [
									{ value: '', label: 'Any' },
									{ value: 'true', label: field.triState.true },
									{ value: 'false', label: field.triState.false },
								]
							: [{ value: '', label: '(not set)' }, 'true', 'false'],
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
				return [OPTIONAL_MSG, 'flow', 'global', 'bin', 'jsonata'];
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
			if (INTEGER_PATTERN && !INTEGER_PATTERN.test(text)) return kindError(label, 'integer');
			const n = Number(value);
			if (field.min !== undefined && n < field.min) return `${label}: at least ${field.min}`;
			if (field.max !== undefined && n > field.max) return `${label}: at most ${field.max}`;
		}
		if (type !== 'str') return null;
		const rule = pattern(field.kind);
		if (rule && !rule.test(text)) return kindError(label, field.kind);
		if (field.kind === 'dateTime' && isNaN(Date.parse(String(value)))) return kindError(label, 'dateTime');
		return null;
	}

	/** A field's row: by its key (the wire name, or for Send one told apart from a namesake). */
	const rowId = (op: Operation, field: Field): string => `node-input-cm-${op.resource}-${op.operation}-${field.key}`;
	const SEND_ID = `${CATALOGUE.send.resource}:${CATALOGUE.send.operation}`;
	/** The first Send To choice (packages/core/src/catalogue/send.ts DEFAULT_SEND_TO). */
	const DEFAULT_SEND_TO = CATALOGUE.sendTargets[0]?.value ?? 'phone';
	/** The send operations Send replaces in the list (still shown for a node saved with one). */
	const SEND_TARGET_OPERATIONS = CATALOGUE.sendTargets.map((target) => target.operation);
	/** Whether a field applies: every field does, except Send's, which apply to their Send To choices. */
	const fieldApplies = (op: Operation, field: Field, sendTo: string | undefined): boolean =>
		op.id !== SEND_ID || !field.sendTo || field.sendTo.includes(sendTo || DEFAULT_SEND_TO);
	const isUrl = (value: unknown): boolean => !URL_PATTERN || URL_PATTERN.test(String(value ?? '').trim());

	/**
	 * Node-RED takes a validator's text (or list of texts) as the reason a property is invalid only when
	 * the validator declares two parameters (value, options); with one, any text counts as "valid".
	 */
	type Validator<Node, Value> = (this: Node, value: Value, options?: unknown) => boolean | string | string[];
	const validator = <Node, Value>(check: (this: Node, value: Value) => boolean | string | string[]): Validator<Node, Value> =>
		function (this: Node, value: Value, _options?: unknown) {
			return check.call(this, value);
		};

	/**
	 * Whether the editor knows the config node has no token: it knows a node's credentials once its dialog
	 * was opened (has_token from the server, or the token typed); a node never opened is not judged.
	 */
	const tokenMissing = (node: { credentials?: Record<string, unknown> }): boolean => {
		const credentials = node.credentials;
		if (!credentials) return false;
		return !credentials.token && credentials.has_token !== true;
	};

	/**
	 * The config node an event node points at must be valid; in webhook mode it needs a Public URL too (the
	 * service posts events there); polling needs none.
	 */
	function eventConfigProblem(id: string, mode: string | undefined): true | string {
		const config = id && id !== '_ADD_' ? RED.nodes.node(id) : null;
		if (!config) return 'Service: choose a Chat Messaging configuration';
		if (config.valid === false) return 'Service: the configuration is incomplete (URL or API token)';
		if ((mode ?? CATALOGUE.eventNode.defaultMode) === 'webhook' && !String(config.publicUrl ?? '').trim()) {
			return 'Service: set the Public URL in the configuration (webhook mode needs it; polling does not)';
		}
		return true;
	}

	/** msg, where an empty value is allowed: an optional Buffer (attachment, file) left empty is no error. */
	const OPTIONAL_MSG: TypedInputType = {
		value: 'msg',
		label: 'msg.',
		validate: (value: string) => value === '' || RED.utils.validatePropertyExpression(value),
	};

	RED.nodes.registerType<ConfigNode>('chat-messaging-config', {
		category: 'config',
		defaults: {
			name: { value: '' },
			baseUrl: {
				value: '',
				required: true,
				// The token is a credential, not a property: its check rides on the Service URL (Node-RED
				// validates credentials only while the dialog is open).
				validate: validator<ConfigNode, string>(function (v) {
					const problems: string[] = [];
					if (!isUrl(v)) problems.push(kindError('Service URL', 'url'));
					if (tokenMissing(this)) problems.push('API token: missing');
					return problems.length ? problems : true;
				}),
			},
			publicUrl: { value: '', validate: validator<ConfigNode, string>((v) => !v || isUrl(v) || kindError('Public URL', 'url')) },
			// Empty: the zone Node-RED runs in (flows saved before the setting read dates there too).
			timeZone: { value: '' },
		},
		credentials: { token: { type: 'password', required: true } },
		label: function () {
			return this.name || this.baseUrl || 'chat messaging';
		},
		oneditprepare: function () {
			const id = this.id;
			const $result = $('#node-config-cm-test-result');
			$('#node-config-cm-test').on('click', () => {
				$result.removeClass('cm-ok').removeClass('cm-failed').text('Testing…');
				// The typed token goes to this Node-RED only (its admin API), never back: an unchanged one is
				// Node-RED's placeholder, and the server uses the stored token instead.
				$.ajax<{ ok: boolean; message: string }>({
					url: 'chat-messaging/test-connection',
					method: 'POST',
					contentType: 'application/json',
					dataType: 'json',
					data: JSON.stringify({
						config: id,
						baseUrl: $('#node-config-input-baseUrl').val(),
						token: $('#node-config-input-token').val(),
					}),
				})
					.done((answer) => $result.addClass(answer.ok ? 'cm-ok' : 'cm-failed').text(answer.message))
					.fail((xhr) => $result.addClass('cm-failed').text(xhr.responseJSON?.message ?? `Test failed (HTTP ${xhr.status})`));
			});
		},
	});

	/**
	 * The help sidebar shows the details of one operation: the selected node's (see help.ts beside this file).
	 * A style rule rather than classes on the help's elements: the sidebar re-renders its content at times
	 * of its own (its tree list selects the node type after the selection event), and a rule outlives that.
	 */
	function showOperationHelp(opId: string | undefined): void {
		let $style = $('#cm-help-style');
		if (!$style.length) $style = $('<style id="cm-help-style"></style>').appendTo($('head'));
		$style.text(
			opId && operationsById[opId]
				? `.red-ui-help .cm-help-op[data-operation="${opId}"] { display: block; } .red-ui-help .cm-help-hint { display: none; }`
				: '',
		);
	}
	// (RED.events is absent only where the script runs outside an editor: the UI contract reads its definitions.)
	RED.events?.on('view:selection-changed', (selection) => {
		const nodes = selection.nodes ?? [];
		const node = nodes.length === 1 ? nodes[0] : undefined;
		showOperationHelp(node && node.type === 'chat-messaging' ? `${String(node.resource)}:${String(node.operation)}` : undefined);
	});

	interface LookupPage {
		results: Array<{ name: string; value: string; description?: string }>;
		nextPageToken?: string;
	}

	/**
	 * The searchable list under a field with a pick list (chat, teammate, account, file, ...): pages from
	 * the admin endpoint (packages/node-red/src/admin.ts, packages/core/src/runtime/lookups.ts as n8n's lists; it uses the deployed config
	 * node's stored token). A click puts the value into the field: a number for ids, added to the list
	 * for list fields, else the text. Typing stays possible.
	 */
	function togglePicker($row: JQuery, $input: JQuery, field: Field): void {
		const open = $row.find('.cm-picker');
		if (open.length) {
			open.remove();
			return;
		}
		const list = String(field.picker);
		const $picker = $('<div class="cm-picker"></div>');
		const $search = $('<input type="text" class="cm-picker-search" placeholder="Search">').appendTo($picker);
		const $list = $('<ol class="cm-picker-list"></ol>').appendTo($picker);
		const $message = $('<div class="cm-picker-message"></div>').appendTo($picker);
		const $more = $('<button type="button" class="red-ui-button red-ui-button-small cm-picker-more">More</button>').appendTo($picker);
		$row.find('.cm-field-help').after($picker);
		let nextPage: string | undefined;
		let request = 0;
		const choose = (value: string, name: string): void => {
			if (field.kind === 'integer') {
				$input.typedInput('type', 'num');
				$input.typedInput('value', value);
			} else if (field.kind === 'stringList' && $input.typedInput('type') === 'str') {
				const current = String($input.typedInput('value') || '')
					.split(',')
					.map((item) => item.trim())
					.filter(Boolean);
				if (!current.includes(value)) current.push(value);
				$input.typedInput('value', current.join(', '));
			} else {
				$input.typedInput('type', 'str');
				$input.typedInput('value', value);
			}
			$row.find('.cm-picker-chosen').remove();
			$row.find('.cm-field-help').after($('<div class="cm-picker-chosen"></div>').text(`Chosen: ${name}`));
			$picker.remove();
		};
		const load = (reset: boolean): void => {
			const config = String($('#node-input-config').val() || '');
			if (reset) {
				nextPage = undefined;
				$list.empty();
			}
			$more.hide();
			if (!config || config === '_ADD_') {
				$message.text('Choose a Service (configuration node) first');
				return;
			}
			const mine = ++request;
			$message.text('Loading…');
			$.getJSON<LookupPage>(`chat-messaging/lookup/${list}`, { config, search: $search.val(), page: nextPage ?? '' })
				.done((answer) => {
					if (mine !== request) return; // a newer search is under way
					for (const result of answer.results) {
						const $item = $('<li class="cm-picker-item"></li>').attr('data-value', result.value);
						$item.text(result.name || result.value);
						if (result.description) $item.append($('<small></small>').text(` · ${result.description}`));
						$item.on('click', () => choose(result.value, result.name || result.value));
						$item.appendTo($list);
					}
					$message.text(answer.results.length || nextPage ? '' : 'Nothing matches');
					nextPage = answer.nextPageToken;
					$more.toggle(!!nextPage);
				})
				.fail((xhr) => {
					if (mine === request) $message.text(xhr.responseJSON?.message ?? `Could not read the list (HTTP ${xhr.status})`);
				});
		};
		let searchTimer: number | undefined;
		$search.on('input', () => {
			window.clearTimeout(searchTimer);
			searchTimer = window.setTimeout(() => load(true), 250);
		});
		$more.on('click', () => load(false));
		load(true);
		$search.focus();
	}

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
			// A new node starts on Send (Send To: its first choice, Phone Number); a saved one keeps its operation.
			resource: { value: CATALOGUE.send.resource, required: true },
			operation: {
				value: CATALOGUE.send.operation,
				required: true,
				validate: validator<ActionNode, string>(function (v) {
					return !!operationsById[`${this.resource}:${v}`] || 'Choose an operation';
				}),
			},
			fields: {
				value: {},
				validate: validator<ActionNode, Record<string, Typed> | undefined>(function (v) {
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
				validate: validator<ActionNode, unknown>(function (v) {
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
				validate: validator<ActionNode, unknown>(
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
				validate: validator<ActionNode, unknown>(
					(v) => v === '' || v === undefined || Number(v) > 0 || 'Reply time-out: seconds, more than 0',
				),
			},
			outputs: { value: 1 },
			waitTimeout: {
				value: CATALOGUE.waitDefaults.waitTimeout,
				validate: validator<ActionNode, unknown>(
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
				const current = $operation.val() || this.operation;
				$operation.empty();
				for (const op of resource.operations) {
					// Send covers the four sends; one stays listed when this node was saved with it.
					if (SEND_TARGET_OPERATIONS.includes(op.id) && !(resource.key === this.resource && op.operation === this.operation)) continue;
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

			// A node saved before Output existed holds none (Node-RED's import does not fill defaults): the
			// dialog shows what the runtime does with it, Raw.
			if (!this.output) $('#node-input-output').val(CATALOGUE.output.whenUnset);
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
			const attachment = this.attachment && typeof this.attachment === 'object' ? this.attachment : { value: '', type: 'msg' };
			const $attachment = $('#node-input-cm-attachment');
			$attachment.typedInput({ types: [OPTIONAL_MSG, 'flow', 'global', 'str', 'bin', 'jsonata', 'env'], default: attachment.type });
			$attachment.typedInput('type', attachment.type);
			$attachment.typedInput('value', attachment.value);
			$operation.val(this.operation);
			fillOperations();
		},
		oneditsave: function () {
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
			this.fields = fields;
			const $attachment = $('#node-input-cm-attachment');
			this.attachment = { value: $attachment.typedInput('value'), type: $attachment.typedInput('type') };
		},
	});

	RED.nodes.registerType<EventNode>('chat-messaging-event', {
		category: CATALOGUE.category,
		color: COLOR,
		icon: 'chat-messaging-event.svg',
		paletteLabel: 'chat event',
		inputs: 0,
		outputs: 1,
		defaults: {
			name: { value: '' },
			config: {
				value: '',
				type: 'chat-messaging-config',
				required: true,
				validate: validator<EventNode, string>(function (this: EventNode, id: string) {
					return eventConfigProblem(id, this.mode);
				}),
			},
			// A flow saved before Mode existed holds no mode: the runtime reads that as webhook, as this default.
			mode: { value: CATALOGUE.eventNode.defaultMode },
			pollSeconds: {
				value: CATALOGUE.eventNode.defaultPollSeconds,
				validate: validator<EventNode, unknown>(
					(v) =>
						(Number.isFinite(Number(v)) && Number(v) >= CATALOGUE.eventNode.minPollSeconds) ||
						`Poll every: at least ${CATALOGUE.eventNode.minPollSeconds} second`,
				),
			},
			// Event filters: a flow saved without them holds none, which passes every event (the runtime reads them so too).
			...Object.fromEntries(CATALOGUE.eventNode.filterOptions.map((option) => [option.name, { value: option.default }])),
			...Object.fromEntries(
				CATALOGUE.eventNode.inboxOptions.map((option) => [
					option.name,
					option.type === 'boolean'
						? { value: option.default }
						: {
								value: option.default,
								validate: validator<EventNode, unknown>(
									(v) => (Number.isFinite(Number(v)) && Number(v) >= (option.minValue ?? 0)) || `${option.name}: 0 or more`,
								),
							},
				]),
			),
			events: {
				value: ['message:received:new'],
				validate: validator<EventNode, unknown>((v) => (Array.isArray(v) && v.length > 0) || 'Choose at least one event type'),
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
			// A node saved before these settings existed holds none of them (Node-RED's import does not fill
			// defaults): the dialog shows what the runtime does with such a node, webhook mode and options off.
			const node = this as EventNode & Record<string, unknown>;
			if (!node.mode) $('#node-input-mode').val(CATALOGUE.eventNode.defaultMode);
			if (node.pollSeconds === undefined || node.pollSeconds === '')
				$('#node-input-pollSeconds').val(CATALOGUE.eventNode.defaultPollSeconds);
			for (const option of [...CATALOGUE.eventNode.filterOptions, ...CATALOGUE.eventNode.inboxOptions]) {
				if (node[option.name] !== undefined) continue;
				const $input = $(`#node-input-${option.name}`);
				if (option.type === 'boolean') $input.prop('checked', option.default === true);
				else $input.val(String(option.default));
			}
			// Polling shows its interval and tip; webhook mode its subscription tip.
			const showMode = () => {
				const polling = $('#node-input-mode').val() === 'polling';
				$('.cm-poll-row, .cm-poll-tip').toggle(polling);
				$('.cm-webhook-tip').toggle(!polling);
			};
			$('#node-input-mode').on('change', showMode);
			showMode();
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
