/**
 * Where the authorization server answers, beside the MCP endpoint. Apart from the server itself so that the HTTP
 * transport can route without loading it (express is loaded only when OAuth is on).
 */
export const OAUTH_PATHS = {
	authorize: '/authorize',
	consent: '/consent',
	token: '/token',
	register: '/register',
	revoke: '/revoke',
	authorizationServerMetadata: '/.well-known/oauth-authorization-server',
	protectedResourceMetadata: '/.well-known/oauth-protected-resource',
} as const;

/** Whether a request's path is one the authorization server answers (the MCP endpoint is not). */
export function isAuthorizationServerPath(pathname: string): boolean {
	return (
		Object.values(OAUTH_PATHS).some((path) => pathname === path || pathname.startsWith(`${path}/`)) || pathname.startsWith('/.well-known/')
	);
}
