/**
 * The configuration node in the editor (runs in the browser): service URL, token (a credential), public URL and
 * time zone, with their checks, and the dialog's Test connection.
 */
import type { EditorNodeProperties } from 'node-red';
import { isUrl, kindError } from '../../editor/catalogue';
import { showMigrated } from '../../editor/migrations';
import { validator } from '../../editor/validator';

interface ConfigProps extends EditorNodeProperties {
	baseUrl: string;
	publicUrl: string;
	timeZone: string;
	/** What the editor knows of the credentials once the dialog was opened. */
	credentials?: Record<string, unknown>;
}
interface ConfigCredentials {
	token: string;
}

/**
 * Whether the editor knows the config node has no token: it knows a node's credentials once its dialog
 * was opened (has_token from the server, or the token typed); a node never opened is not judged.
 */
const tokenMissing = (node: { credentials?: Record<string, unknown> }): boolean => {
	const credentials = node.credentials;
	if (!credentials) return false;
	return !credentials.token && credentials.has_token !== true;
};

/** Required as well: Node-RED reads `required` on a credential too, which the typings leave out. */
const TOKEN_CREDENTIAL = { type: 'password' as const, required: true };

export function registerConfigEditor(): void {
	RED.nodes.registerType<ConfigProps, ConfigCredentials>('chat-messaging-config', {
		category: 'config',
		defaults: {
			name: { value: '' },
			baseUrl: {
				value: '',
				required: true,
				// The token is a credential, not a property: its check rides on the Service URL (Node-RED
				// validates credentials only while the dialog is open).
				validate: validator<ConfigProps, string>(function (v) {
					const problems: string[] = [];
					if (!isUrl(v)) problems.push(kindError('Service URL', 'url'));
					if (tokenMissing(this)) problems.push('API token: missing');
					return problems.length ? problems : true;
				}),
			},
			publicUrl: { value: '', validate: validator<ConfigProps, string>((v) => !v || isUrl(v) || kindError('Public URL', 'url')) },
			// Empty: the zone Node-RED runs in (flows saved before the setting read dates there too).
			timeZone: { value: '' },
		},
		credentials: { token: TOKEN_CREDENTIAL },
		label: function () {
			return this.name || this.baseUrl || 'chat messaging';
		},
		oneditprepare: function () {
			showMigrated('chat-messaging-config', this, 'node-config-input');
			const id = this.id;
			const $result = $('#node-config-cm-test-result');
			$('#node-config-cm-test').on('click', () => {
				$result.removeClass('cm-ok').removeClass('cm-failed').text('Testing…');
				// The typed token goes to this Node-RED only (its admin API), never back: an unchanged one is
				// Node-RED's placeholder, and the server uses the stored token instead.
				$.ajax({
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
					.done((answer: { ok: boolean; message: string }) => $result.addClass(answer.ok ? 'cm-ok' : 'cm-failed').text(answer.message))
					.fail((xhr) => $result.addClass('cm-failed').text(xhr.responseJSON?.message ?? `Test failed (HTTP ${xhr.status})`));
			});
		},
	});
}
