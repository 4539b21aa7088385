/** The configuration node's help (locales/en-US/index.html, `data-help-name="chat-messaging-config"`). */
export const configHelp = `<script type="text/html" data-help-name="chat-messaging-config">
  <p>The Chat Messaging Service a flow talks to.</p>
  <dl class="message-properties">
    <dt>Service URL <span class="property-type">string</span></dt><dd>Base address of the API, e.g. <code>https://api.example.com</code> (trailing slashes are removed).</dd>
    <dt>API token <span class="property-type">credential</span></dt><dd>Copied from the API integration page of the workspace owner's account. Sent as a bearer token; never logged nor exported.</dd>
    <dt class="optional">Public URL <span class="property-type">string</span></dt><dd>For event nodes: the public HTTPS address at which the service reaches this Node-RED; the HTTP node root is appended.</dd>
    <dt class="optional">Time zone <span class="property-type">string</span></dt><dd>The zone dates are read in, e.g. <code>Europe/Berlin</code>: a date alone such as <code>2026-01-31</code> means midnight there, and a date-time without a zone is its wall time. Empty: the zone this Node-RED runs in. A date-time with <code>Z</code> or an offset is the same instant everywhere.</dd>
  </dl>
  <p>All nodes using one configuration share its connections and its pacing under the service's rate limit.</p>
</script>`;
