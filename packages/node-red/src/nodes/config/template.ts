/** The configuration node's dialog: service URL, token, public URL, time zone, and Test connection. */
import { i18n, label } from '../../generate/html';

export const configTemplate = `<script type="text/html" data-template-name="chat-messaging-config">
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
