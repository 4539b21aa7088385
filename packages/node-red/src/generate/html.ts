/**
 * What every node's dialog, texts and help are written with: HTML escaping, the `data-i18n` keys Node-RED fills
 * from locales/en-US/index.json, a form row's label, the dialogs' shared style.
 */
export const escapeHtml = (text: unknown): string =>
	String(text ?? '').replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c] ?? c);
/** JSON inside a <script>: `<` escaped so no `</script>` can end it early. */
export const scriptJson = (value: unknown): string =>
	JSON.stringify(value)
		.replace(/</g, '\\u003c')
		.replace(/\u2028/g, '\\u2028')
		.replace(/\u2029/g, '\\u2029');

export const sentence = (text: string): string => (/[.!?]$/.test(text) ? text : `${text}.`);

/** `data-i18n` keys of the dialogs: Node-RED fills the elements from locales/en-US/index.json. */
export const i18n = (key: string, attribute = ''): string => `data-i18n="${attribute}${key}"`;
/** i18next nests keys at dots and takes a colon for a namespace: `message:sent:new` → `message_sent_new`. */
export const messageKey = (value: string): string => value.replace(/[:.]/g, '_') || 'none';

/** A form row's label: its icon, then its text from the message catalogue. */
export const label = (forId: string, icon: string, key: string, required = false): string =>
	`<label for="${forId}"><i class="fa ${icon}"></i> <span ${i18n(key)}></span>${required ? ' <span class="cm-required">*</span>' : ''}</label>`;

/** The dialogs' style: field help, the folded optional fields, the pickers, the per-operation help. */
export const STYLE = `<style>
  .cm-field-help { margin: 2px 0 0 105px; font-size: 0.85em; color: var(--red-ui-secondary-text-color, #888); }
  .cm-required { color: var(--red-ui-text-color-error, #d00); }
  #cm-operation-description { margin-left: 105px; }
  .cm-optional-header { font-weight: bold; text-decoration: none; }
  .cm-optional-header .fa { transition: transform 0.2s; width: 10px; }
  .cm-optional.cm-open .cm-optional-header .fa { transform: rotate(90deg); }
  .cm-optional-count { font-weight: normal; color: var(--red-ui-secondary-text-color, #888); }
  .cm-pick { margin-left: 4px; }
  .cm-picker { margin: 4px 0 0 105px; width: 70%; border: 1px solid var(--red-ui-secondary-border-color, #ccc); padding: 6px; }
  .cm-picker-search { width: 100%; box-sizing: border-box; }
  .cm-picker-list { list-style: none; margin: 4px 0; padding: 0; max-height: 220px; overflow-y: auto; }
  .cm-picker-list li { padding: 3px 6px; cursor: pointer; }
  .cm-picker-list li:hover { background: var(--red-ui-list-item-background-hover, #eee); }
  .cm-picker-list small, .cm-picker-chosen { color: var(--red-ui-secondary-text-color, #888); }
  .cm-picker-chosen { margin-left: 105px; font-size: 0.85em; }
  .cm-test-result.cm-ok { color: var(--red-ui-text-color-success, #3a3); }
  .cm-test-result.cm-failed { color: var(--red-ui-text-color-error, #d00); }
  /* Per-operation help: the help sidebar shows the selected node's operation only (src/editor/help-sidebar.ts adds its rule). */
  .red-ui-help .cm-help-op { display: none; }
</style>`;
