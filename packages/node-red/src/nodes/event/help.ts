/** The event node's help (locales/en-US/index.html, `data-help-name="chat-messaging-event"`): both modes, the filters and the inbox options. */
import { EVENT_FILTER_OPTIONS, INBOX_OPTIONS } from '@chat-messaging/core';
import { CHOICES } from '../../generate/catalogue';
import { escapeHtml } from '../../generate/html';
import { CONVERSATION_OPTIONS } from './conversation';

export const eventHelp = `<script type="text/html" data-help-name="chat-messaging-event">
  <p>Emits a message for each webhook event of the chosen types.</p>
  <h3>Outputs</h3>
  <dl class="message-properties">
    <dt>topic <span class="property-type">string</span></dt><dd>The event type: ${CHOICES.events.map((e) => `<code>${escapeHtml(e.value)}</code>`).join(', ')}.</dd>
    <dt>payload <span class="property-type">object</span></dt>
    <dd><code>{event_type, chat_id, chat_name, text, message_uid, unattended, raw}</code>; <code>raw</code> is the delivery as received; a value the delivery does not carry is <code>null</code>.
    Both delivery shapes are accepted: <code>{event_type, data: {...}}</code> and <code>{event_type, chat: {...}, message: {...}}</code>.</dd>
    <dt>chatInput <span class="property-type">string</span></dt><dd>What the customer wrote: the message's text, or a burst's texts one a line (left out when there is no text).</dd>
    <dt>sessionId <span class="property-type">string</span></dt><dd>The chat's id as a string: the key of the conversation for a memory or an agent node.</dd>
  </dl>
  <h3>Details</h3>
  <p>On deploy the node serves <code>POST &lt;HTTP node root&gt;/chat-messaging/events/&lt;node id&gt;/&lt;secret&gt;</code> and subscribes
  once per event type at the configuration's <i>Public URL</i> followed by that path. The secret is derived from the token and the node id,
  so the subscriptions outlive redeploys and restarts and no event is lost meanwhile; they are deleted when the node is removed.
  The service signs nothing, so the secret in the URL is what rejects forged calls (401).</p>
  <p>The node answers 200 at once, 503 while it starts or stops (the service retries), 400 for a body that is not a JSON event, and
  drops redeliveries of an event it has already emitted (same type and message uid, or event id, or chat id for <code>chat:created</code>;
  remembered for 15 minutes).</p>
  <p>With <i>Attachments</i> on, the files of an inbound message are downloaded into <code>msg.attachments</code>; a failed download
  does not lose the event.</p>
  <p>The service needs a public HTTPS address: put Node-RED behind a reverse proxy or tunnel and set the Public URL to it.
  Without one, choose <i>Mode: Polling</i>.</p>
  <h3>Polling</h3>
  <p>With <i>Mode: Polling</i> the node needs no public URL and holds no webhook subscription: every <i>Poll every</i> seconds it
  reads what is new since its cursor (one request while nothing is new, plus one per chat with new messages) and emits each event
  once, shaped as a webhook event. The cursor is stored in <code>&lt;user dir&gt;/chat-messaging/</code> (Node-RED's default context
  store is memory), so a redeploy or a restart neither repeats nor skips an event; the first deploy starts from now. A flow saved
  before Mode existed keeps webhook mode. While a burst is held, the node also looks again a second after its quiet time ends,
  so the burst goes out then rather than at the next poll.</p>
  <h3>Filters</h3>
  <p>In both modes, the same as the n8n triggers' options; all pass every event by default. A filter that needs the chat or the message
  reads it (one request) when the event lacks it; when that read fails, the event is emitted with <code>msg.filterError</code>.</p>
  <dl class="message-properties">
${EVENT_FILTER_OPTIONS.map((option) => `    <dt class="optional">${escapeHtml(option.displayName)}</dt><dd>${escapeHtml(option.description)}${option.options ? ` (${option.options.map((choice) => escapeHtml(choice.name)).join(', ')})` : ''}</dd>`).join('\n')}
  </dl>
  <h3>Inbox options</h3>
  <p>All off by default, in both modes.</p>
  <dl class="message-properties">
${INBOX_OPTIONS.map((option) => `    <dt class="optional">${escapeHtml(option.displayName)}</dt><dd>${escapeHtml(option.description)}</dd>`).join('\n')}
  </dl>
  <h3>Conversation</h3>
  <p>With <i>Add Conversation</i> on (off by default), each message of a chat goes out with the chat's recent conversation, read from
  the service (what teammates wrote in the web app and what other flows sent included): <code>msg.conversation</code> is
  <code>{chat_id, chat_name, is_group, members, messages}</code>, each message with its <code>role</code> (<code>customer</code>,
  <code>workspace</code> for messages sent through the API, <code>teammate</code> with <code>sender_name</code>), <code>text</code> and
  <code>attachment</code> (its file name and type); <code>msg.chatMessages</code> is the same, oldest first, as OpenAI chat messages
  <code>[{role: "user" | "assistant", content}]</code>. The message the event stands for (or a burst's messages) is left out: it is the
  turn's prompt, in <code>msg.payload.text</code>. A window within one page costs two requests per message. A conversation that cannot be
  read (a revoked token, a deleted chat) is an error naming the chat, which a Catch node receives with the message.</p>
  <dl class="message-properties">
${CONVERSATION_OPTIONS.map((option) => `    <dt class="optional">${escapeHtml(option.displayName)}</dt><dd>${escapeHtml(option.description)}</dd>`).join('\n')}
  </dl>
  <p>A burst comes out as one message: <code>payload.text</code> holds the texts joined by new lines, <code>payload.message_uids</code>
  every uid, <code>payload.messages</code> each event, oldest first. Held messages are stored with the cursor, so a restart loses none.
  In webhook mode the service may deliver a burst's messages out of order, so a burst of two or more reads the chat once (one request)
  to put them in the order the customer wrote them; when that read fails, they go out in the order delivered, with a warning.
  When a takeover lookup fails in webhook mode, the event is emitted with <code>msg.takeoverError</code>.</p>
</script>`;
