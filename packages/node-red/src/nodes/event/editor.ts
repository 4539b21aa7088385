/**
 * The event node in the editor (runs in the browser): Mode, the poll interval, the event types, the event filters
 * and the inbox options, with their defaults and checks, and the dialog's own behaviour.
 */
import type { EditorNodeInstance, EditorNodeProperties } from 'node-red';
import { CATALOGUE, COLOR } from '../../editor/catalogue';
import { migrated, showMigrated } from '../../editor/migrations';
import { validator } from '../../editor/validator';

const EVENT = 'chat-messaging-event';

interface EventProps extends EditorNodeProperties {
	config: string;
	mode: string;
	pollSeconds: number | string;
	events: string[];
	downloadAttachments: boolean;
}
type EventNode = EditorNodeInstance<EventProps>;

/**
 * The config node an event node points at must be valid; in webhook mode it needs a Public URL too (the
 * service posts events there); polling needs none.
 */
function eventConfigProblem(id: string, mode: string): true | string {
	const config = id && id !== '_ADD_' ? (RED.nodes.node(id) as { valid?: boolean; publicUrl?: unknown } | null) : null;
	if (!config) return 'Service: choose a Chat Messaging configuration';
	if (config.valid === false) return 'Service: the configuration is incomplete (URL or API token)';
	if (mode === 'webhook' && !String(config.publicUrl ?? '').trim()) {
		return 'Service: set the Public URL in the configuration (webhook mode needs it; polling does not)';
	}
	return true;
}

function prepareEventDialog(node: EventNode): void {
	const chosen = Array.isArray(node.events) ? node.events : [];
	$('.cm-event-type').each(function () {
		$(this).prop('checked', chosen.includes(String($(this).val())));
	});
	showMigrated(EVENT, node);
	// Polling shows its interval and tip; webhook mode its subscription tip.
	const showMode = () => {
		const polling = $('#node-input-mode').val() === 'polling';
		$('.cm-poll-row, .cm-poll-tip').toggle(polling);
		$('.cm-webhook-tip').toggle(!polling);
	};
	$('#node-input-mode').on('change', showMode);
	showMode();
}

function saveEventDialog(node: EventNode): void {
	node.events = $('.cm-event-type:checked')
		.map(function () {
			return String($(this).val());
		})
		.get();
}

export function registerEventEditor(): void {
	RED.nodes.registerType<EventProps>(EVENT, {
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
				validate: validator<EventProps, string>(function (id) {
					// A node saved before Mode existed is checked as it runs: in webhook mode.
					return eventConfigProblem(id, String(migrated(EVENT, this).mode));
				}),
			},
			// A flow saved before Mode existed holds no mode: the runtime reads that as webhook, as this default.
			mode: { value: CATALOGUE.eventNode.defaultMode },
			pollSeconds: {
				value: CATALOGUE.eventNode.defaultPollSeconds,
				validate: validator<EventProps, unknown>(
					(v) =>
						(Number.isFinite(Number(v)) && Number(v) >= CATALOGUE.eventNode.minPollSeconds) ||
						`Poll every: at least ${CATALOGUE.eventNode.minPollSeconds} second`,
				),
			},
			// Event filters: a flow saved without them holds none, which passes every event (the runtime reads them so too).
			...Object.fromEntries(CATALOGUE.eventNode.filterOptions.map((option) => [option.name, { value: option.default }])),
			// The inbox options, and Add Conversation with its window: off, at the core's defaults.
			...Object.fromEntries(
				[...CATALOGUE.eventNode.inboxOptions, ...CATALOGUE.eventNode.conversationOptions].map((option) => [
					option.name,
					option.type === 'boolean'
						? { value: option.default }
						: {
								value: option.default,
								validate: validator<EventProps, unknown>(
									(v) => (Number.isFinite(Number(v)) && Number(v) >= (option.minValue ?? 0)) || `${option.name}: 0 or more`,
								),
							},
				]),
			),
			events: {
				value: ['message:received:new'],
				validate: validator<EventProps, unknown>((v) => (Array.isArray(v) && v.length > 0) || 'Choose at least one event type'),
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
			prepareEventDialog(this);
		},
		oneditsave: function () {
			saveEventDialog(this);
		},
	});
}
