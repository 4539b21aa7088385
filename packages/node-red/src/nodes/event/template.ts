/** The event node's dialog: Mode and poll interval, the event types, attachments, the event filters and the inbox options. */
import { EVENT_FILTER_OPTIONS, INBOX_OPTIONS } from '@chat-messaging/core';
import { CHOICES } from '../../generate/catalogue';
import { escapeHtml, i18n, label, messageKey } from '../../generate/html';
import { NAME_AND_SERVICE_ROWS } from '../action/template';
import { CONVERSATION_OPTIONS } from './conversation';
import { EVENT_MODES, MIN_POLL_SECONDS } from './settings';

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

/** Add Conversation and its window: a checkbox, then two numbers. */
const conversationRow = (option: (typeof CONVERSATION_OPTIONS)[number]): string => {
	const id = `node-input-${option.name}`;
	const widget =
		option.type === 'boolean'
			? `<input type="checkbox" id="${id}" style="width:auto">
    <span ${i18n(`chat-messaging-event.conversation.${option.name}.label`)}></span>`
			: `<input type="number" id="${id}" min="${option.minValue}" style="width:100px">`;
	return `  <div class="form-row cm-conversation-row">
    ${label(id, option.type === 'boolean' ? 'fa-comments' : 'fa-history', `chat-messaging-event.label.${option.name}`)}
    ${widget}
    <div class="cm-field-help" ${i18n(`chat-messaging-event.conversation.${option.name}.help`)}></div>
  </div>`;
};

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

export const eventTemplate = `<script type="text/html" data-template-name="chat-messaging-event">
${NAME_AND_SERVICE_ROWS}
  <div class="form-row">
    ${label('node-input-mode', 'fa-exchange', 'chat-messaging-event.label.mode')}
    <select id="node-input-mode" style="width:70%">
${EVENT_MODES.map((mode) => `      <option value="${escapeHtml(mode.value)}" ${i18n(`chat-messaging-event.mode.${mode.value}`)}></option>`).join('\n')}
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
${CONVERSATION_OPTIONS.map(conversationRow).join('\n')}
  <div class="form-tips cm-webhook-tip" ${i18n('chat-messaging-event.tip', '[html]')}></div>
  <div class="form-tips cm-poll-tip" ${i18n('chat-messaging-event.pollTip', '[html]')}></div>
</script>`;
