/**
 * Vitest runs only what needs it: the Chat SDK's adapter contracts from `@chat-adapter/tests` (a vitest kit), held to
 * the chat adapter (`npm run test:chat-kit`). Everything else is jest's. The workspace packages resolve to their
 * sources, as jest's moduleNameMapper has them.
 */
import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';

const source = (name: string) => fileURLToPath(new URL(`./packages/${name}/src/index.ts`, import.meta.url));

export default defineConfig({
	resolve: {
		alias: {
			'@chat-messaging/core': source('core'),
			'@chat-messaging/client': source('client'),
		},
	},
	test: {
		include: ['packages/chat-adapter/test/*.kit.ts'],
		setupFiles: ['@chat-adapter/tests/setup'],
	},
});
