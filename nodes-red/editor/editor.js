/*
 * Editor side of the Chat Messaging nodes (runs in the Node-RED editor, in the browser).
 * scripts/node-red-editor.ts puts this file into nodes-red/index.html after the catalogue metadata
 * (`CHAT_MESSAGING_CATALOGUE`, generated from api/) and the edit templates it generated from it.
 * Plain ES2017 and jQuery only: the editor loads it as an inline script, without a bundler.
 */
(function () {
	'use strict';
	var CATALOGUE = window.CHAT_MESSAGING_CATALOGUE;
	var COLOR = '#5fc29a';
	var SOURCES = ['msg', 'flow', 'global', 'env', 'jsonata'];
	var URL_PATTERN = /^https?:\/\/\S+$/i;

	var operationsById = {};
	CATALOGUE.resources.forEach(function (resource) {
		resource.operations.forEach(function (op) {
			operationsById[op.id] = op;
		});
	});

	/** Values coming from msg/flow/global/env/JSONata are known only at run time: never block them. */
	function isDynamic(type) {
		return SOURCES.indexOf(type) !== -1;
	}

	/** The typedInput types of a field, by what it holds; the first is the default. */
	function typesFor(field) {
		switch (field.kind) {
			case 'integer':
				return ['num', 'str'].concat(SOURCES);
			case 'boolean':
				return [
					{
						value: 'boolean',
						label: 'true/false',
						icon: 'red/images/typedInput/bool.svg',
						options: [{ value: '', label: '(not set)' }, 'true', 'false'],
					},
				].concat(SOURCES);
			case 'options':
				return [
					{
						value: 'select',
						label: 'option',
						icon: 'fa fa-list',
						options: [{ value: '', label: '(not set)' }].concat(
							field.options.map(function (o) {
								return { value: o.value, label: o.name };
							}),
						),
					},
				].concat(SOURCES);
			case 'stringList':
				return ['str', 'json'].concat(SOURCES);
			case 'dateTime':
				return ['str', 'date'].concat(SOURCES);
			case 'binary':
				return ['msg', 'flow', 'global', 'bin', 'jsonata'];
			default:
				return ['str'].concat(SOURCES);
		}
	}

	/** The value a new (never saved) field starts with: the descriptor's default, else empty. */
	function initialValue(field) {
		var types = typesFor(field);
		var type = typeof types[0] === 'string' ? types[0] : types[0].value;
		if (field.default === undefined) return { value: '', type: type };
		var value = Array.isArray(field.default) ? field.default.join(', ') : String(field.default);
		return { value: value, type: type };
	}

	/** Checks one static value against its field's rules; returns an error message or null. */
	function checkStatic(field, value, type) {
		if (value === '' || value === undefined || isDynamic(type)) return null;
		var label = field.displayName;
		if (field.kind === 'integer' && (type === 'num' || type === 'str')) {
			if (!/^-?\d+$/.test(String(value).trim())) return label + ': a whole number';
			var n = Number(value);
			if (field.min !== undefined && n < field.min) return label + ': at least ' + field.min;
			if (field.max !== undefined && n > field.max) return label + ': at most ' + field.max;
		}
		if (type !== 'str') return null;
		var pattern = CATALOGUE.patterns[field.kind];
		if (pattern && !new RegExp(pattern).test(String(value).trim())) return label + ': ' + CATALOGUE.hints[field.kind];
		if (field.kind === 'url' && !URL_PATTERN.test(String(value).trim())) return label + ': ' + CATALOGUE.hints.url;
		if (field.kind === 'dateTime' && isNaN(Date.parse(String(value)))) return label + ': ' + CATALOGUE.hints.dateTime;
		return null;
	}

	function rowId(op, field) {
		return 'node-input-cm-' + op.resource + '-' + op.operation + '-' + field.name;
	}

	RED.nodes.registerType('chat-messaging-config', {
		category: 'config',
		defaults: {
			name: { value: '' },
			baseUrl: {
				value: '',
				required: true,
				validate: function (v) {
					return URL_PATTERN.test(String(v || '').trim()) || 'Service URL: an http(s) URL';
				},
			},
			publicUrl: {
				value: '',
				validate: function (v) {
					return !v || URL_PATTERN.test(String(v).trim()) || 'Public URL: an http(s) URL';
				},
			},
		},
		credentials: { token: { type: 'password', required: true } },
		label: function () {
			return this.name || this.baseUrl || 'chat messaging';
		},
	});

	RED.nodes.registerType('chat-messaging', {
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
				validate: function (v) {
					return !!operationsById[this.resource + ':' + v] || 'Choose an operation';
				},
			},
			fields: {
				value: {},
				validate: function (v) {
					var op = operationsById[this.resource + ':' + this.operation];
					if (!op || !v) return true;
					var errors = [];
					op.fields.forEach(function (field) {
						var typed = v[field.name];
						var problem = typed && checkStatic(field, typed.value, typed.type);
						if (problem) errors.push(problem);
					});
					return errors.length ? errors : true;
				},
			},
			outputMode: { value: 'array' },
			payloadFields: { value: false },
			// LIST_DEFAULTS of api/defaults.ts, as n8n shows them; saved flows keep the value they hold.
			returnAll: { value: CATALOGUE.listDefaults.returnAll },
			limit: {
				value: CATALOGUE.listDefaults.limit,
				validate: function (v) {
					return v === '' || v === undefined || (/^\d+$/.test(String(v)) && Number(v) >= 1) || 'Limit: a whole number of at least 1';
				},
			},
			attachment: { value: { value: '', type: 'msg' } },
			attachmentName: { value: '' },
			waitFor: { value: '' },
			waitTimeout: {
				value: 60,
				validate: function (v) {
					return v === '' || v === undefined || Number(v) > 0 || 'Wait timeout: seconds, more than 0';
				},
			},
		},
		label: function () {
			var op = operationsById[this.resource + ':' + this.operation];
			return this.name || (op ? op.action : 'chat messaging');
		},
		labelStyle: function () {
			return this.name ? 'node_label_italic' : '';
		},
		oneditprepare: function () {
			var node = this;
			var saved = node.fields || {};
			var prepared = {};
			var $resource = $('#node-input-resource');
			var $operation = $('#node-input-operation');

			CATALOGUE.resources.forEach(function (resource) {
				$('<option>').val(resource.key).text(resource.name).appendTo($resource);
			});
			$resource.val(operationsById[node.resource + ':' + node.operation] ? node.resource : 'message');

			/** typedInputs are created when an operation is first shown: some 200 at once would be slow. */
			function prepareOperation(op) {
				if (prepared[op.id]) return;
				prepared[op.id] = true;
				op.fields.forEach(function (field) {
					var $input = $('#' + rowId(op, field));
					// Saved values carry over between operations sharing a wire name (chat_id, text, ...).
					var value = saved[field.name] && typeof saved[field.name] === 'object' ? saved[field.name] : initialValue(field);
					$input.val(value.value);
					$input.typedInput({ types: typesFor(field), default: value.type });
					$input.typedInput('type', value.type);
					$input.typedInput('value', value.value);
				});
			}

			function fillOperations() {
				var resourceKey = $resource.val();
				var resource = CATALOGUE.resources.filter(function (r) {
					return r.key === resourceKey;
				})[0];
				var current = $operation.val() || node.operation;
				$operation.empty();
				resource.operations.forEach(function (op) {
					$('<option>').val(op.operation).text(op.name).attr('title', op.action).appendTo($operation);
				});
				var keep = resource.operations.some(function (op) {
					return op.operation === current;
				});
				$operation.val(keep ? current : resource.operations[0].operation);
				showOperation();
			}

			function showOperation() {
				var op = operationsById[$resource.val() + ':' + $operation.val()];
				$('.cm-op').hide();
				if (!op) return;
				prepareOperation(op);
				$('#cm-op-' + op.resource + '-' + op.operation).show();
				$('#cm-operation-description').text(op.description);
				$('.cm-list-only').toggle(op.effect === 'read');
				$('.cm-paginated-only').toggle(!!op.paginated);
				$('.cm-send-only').toggle(!!op.sendsMessage);
				$('#node-input-returnAll').trigger('change');
			}

			$resource.on('change', fillOperations);
			$operation.on('change', showOperation);
			$('#node-input-returnAll').on('change', function () {
				$('.cm-limit-row').toggle(!$(this).is(':checked'));
			});
			var attachment = node.attachment && typeof node.attachment === 'object' ? node.attachment : { value: '', type: 'msg' };
			$('#node-input-cm-attachment').typedInput({
				types: ['msg', 'flow', 'global', 'str', 'bin', 'jsonata', 'env'],
				default: attachment.type,
			});
			$('#node-input-cm-attachment').typedInput('type', attachment.type);
			$('#node-input-cm-attachment').typedInput('value', attachment.value);
			$operation.val(node.operation);
			fillOperations();
		},
		oneditsave: function () {
			var op = operationsById[$('#node-input-resource').val() + ':' + $('#node-input-operation').val()];
			var fields = {};
			if (op) {
				op.fields.forEach(function (field) {
					var $input = $('#' + rowId(op, field));
					fields[field.name] = { value: $input.typedInput('value'), type: $input.typedInput('type') };
				});
			}
			this.fields = fields;
			this.attachment = {
				value: $('#node-input-cm-attachment').typedInput('value'),
				type: $('#node-input-cm-attachment').typedInput('type'),
			};
		},
	});

	RED.nodes.registerType('chat-messaging-event', {
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
				validate: function (v) {
					return (Array.isArray(v) && v.length > 0) || 'Choose at least one event type';
				},
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
			var chosen = Array.isArray(this.events) ? this.events : [];
			$('.cm-event-type').each(function () {
				$(this).prop('checked', chosen.indexOf($(this).val()) !== -1);
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
