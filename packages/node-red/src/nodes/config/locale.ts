/** The configuration node's English texts (locales/en-US/index.json, its namespace `chat-messaging-config`). */
export const configMessages = () => ({
	label: { name: 'Name', baseUrl: 'Service URL', token: 'API token', publicUrl: 'Public URL', timeZone: 'Time zone' },
	placeholder: { timeZone: "e.g. Europe/Berlin; empty: this Node-RED's zone" },
	testConnection: 'Test connection',
	testing: 'Testing…',
	tip:
		'The token is stored as a credential: it is never exported with the flow. <b>Public URL</b> is needed by the event node only: ' +
		'the public HTTPS address at which the service reaches this Node-RED (its HTTP node root is appended).',
});
