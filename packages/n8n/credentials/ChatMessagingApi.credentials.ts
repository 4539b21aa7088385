import type { IAuthenticateGeneric, Icon, ICredentialTestRequest, ICredentialType, INodeProperties } from 'n8n-workflow';

/**
 * Bearer-token access to one workspace of the Chat Messaging Service. The test asks for the
 * workspace record, the cheapest call that needs a valid token.
 */
export class ChatMessagingApi implements ICredentialType {
	name = 'chatMessagingApi';

	displayName = 'Chat Messaging API';

	icon: Icon = { light: 'file:../icons/chat-messaging.svg', dark: 'file:../icons/chat-messaging.dark.svg' };

	documentationUrl = 'https://github.com/chat-messaging/chat-messaging-nodes#credentials';

	properties: INodeProperties[] = [
		{
			displayName: 'Base URL',
			name: 'baseUrl',
			type: 'string',
			default: '',
			required: true,
			placeholder: 'https://api.example.com',
			description: 'Address of the Chat Messaging Service API, without a trailing slash (one is removed if present)',
		},
		{
			displayName: 'API Token',
			name: 'apiToken',
			type: 'string',
			typeOptions: { password: true },
			default: '',
			required: true,
			description: "Copied from the API integration page of the workspace owner's account in the web application",
		},
	];

	authenticate: IAuthenticateGeneric = {
		type: 'generic',
		properties: {
			headers: {
				Authorization: '=Bearer {{$credentials.apiToken}}',
			},
		},
	};

	// n8n reports an unreachable address with its network error code (ECONNREFUSED, ENOTFOUND, ...);
	// these rules give the answers that prove the address works a message of their own.
	test: ICredentialTestRequest = {
		request: {
			baseURL: '={{String($credentials.baseUrl).trim().replace(/\\/+$/, "")}}',
			url: '/workspace',
			method: 'GET',
		},
		rules: [
			{
				type: 'responseCode',
				properties: {
					value: 401,
					message: 'The service rejected the API token (HTTP 401): copy it again from the API integration page',
				},
			},
			{
				type: 'responseCode',
				properties: {
					value: 403,
					message: 'The API token is valid but has no access to this workspace (HTTP 403)',
				},
			},
			{
				type: 'responseCode',
				properties: {
					value: 404,
					message: 'No Chat Messaging API answers at this Base URL (HTTP 404 for /workspace): check the address',
				},
			},
		],
	};
}
