/**
 * The spec's endpoints, as the sandbox serves them: the sandbox is written from the spec alone, so its API
 * routes are the list the catalogue is held to (a test never spells the endpoints out). A route that runs the
 * same handler as another on the same path is an alias the sandbox accepts beside the spec's (PATCH beside
 * PUT): one endpoint. Placeholders are written `{}`, since the spec and the sandbox name them differently.
 */
import { ROUTES } from '../../packages/sandbox/src/server';

export const endpointKey = (method: string, path: string): string => `${method} ${path.replace(/\{\w+\}|:\w+/g, '{}')}`;

export function specEndpoints(): string[] {
	const api = ROUTES.filter((route) => route.kind === 'api');
	const aliases = api.filter((route, index) =>
		api.some((other, otherIndex) => otherIndex < index && other.pattern === route.pattern && other.handler === route.handler),
	);
	return api.filter((route) => !aliases.includes(route)).map((route) => endpointKey(route.method, route.pattern));
}
