// A real OpenID provider (oidc-provider) for the OpenID Connect tests, on
// 127.0.0.1 at a port of its own choosing. It prints one JSON line,
// {"issuer": "http://127.0.0.1:PORT"}, once it listens.
//
// What it is configured with:
//   - people: alice and bob (verified e-mails), carol (an e-mail the
//     provider has not verified); they sign in on the provider's own
//     development pages (any password);
//   - clients: `learnables-cli` (public, device authorization grant and
//     refresh tokens), `learnables-page` (public, authorization code with
//     PKCE, redirects to /learnables/ on any loopback port), `reporting`
//     (client credentials: a service) and `stale` (client credentials,
//     tokens that expire one second after they are issued);
//   - access tokens are JWTs for the resource given as AUDIENCE (argv[2]),
//     or `urn:learnables:other` when a client asks for that one, and carry
//     the person's e-mail and whether it is verified;
//   - key rotation: `POST /test/rotate?alg=ES256|EdDSA|RS256` makes a new
//     signing key of that algorithm, publishes it first (the old ones stay
//     published), and signs every token from then on with it.
import * as crypto from 'node:crypto';
import * as http from 'node:http';

import Provider from 'oidc-provider';

const audience = process.argv[2] ?? 'urn:learnables:agent';
const other = 'urn:learnables:other';

const people = {
  alice: { email: 'alice@example.com', email_verified: true, name: 'Alice Example' },
  bob: { email: 'bob@example.com', email_verified: true, name: 'Bob Example' },
  carol: { email: 'carol@example.com', email_verified: false, name: 'Carol Example' },
};

let counter = 0;
function signingKey(alg) {
  counter += 1;
  const kid = `key-${counter}-${alg}`;
  let pair;
  if (alg === 'RS256') pair = crypto.generateKeyPairSync('rsa', { modulusLength: 2048 });
  else if (alg === 'ES256') pair = crypto.generateKeyPairSync('ec', { namedCurve: 'P-256' });
  else if (alg === 'EdDSA') pair = crypto.generateKeyPairSync('ed25519');
  else throw new Error(`no such algorithm: ${alg}`);
  return { alg, jwk: { ...pair.privateKey.export({ format: 'jwk' }), kid, alg, use: 'sig' } };
}

// The newest key first: it signs.
const keys = [signingKey('RS256')];

function build(issuer) {
  const signing = keys[0].alg;
  const provider = new Provider(issuer, {
    clients: [
      {
        client_id: 'learnables-cli',
        token_endpoint_auth_method: 'none',
        application_type: 'native',
        grant_types: ['urn:ietf:params:oauth:grant-type:device_code', 'refresh_token'],
        response_types: [],
        redirect_uris: [],
      },
      {
        client_id: 'learnables-page',
        token_endpoint_auth_method: 'none',
        application_type: 'native',
        grant_types: ['authorization_code'],
        response_types: ['code'],
        redirect_uris: ['http://127.0.0.1/learnables/'],
      },
      {
        client_id: 'reporting',
        client_secret: 'reporting-secret',
        grant_types: ['client_credentials'],
        response_types: [],
        redirect_uris: [],
      },
      {
        client_id: 'stale',
        client_secret: 'stale-secret',
        grant_types: ['client_credentials'],
        response_types: [],
        redirect_uris: [],
      },
    ],
    jwks: { keys: keys.map((key) => key.jwk) },
    clientDefaults: { id_token_signed_response_alg: signing },
    scopes: ['openid', 'email', 'profile', 'offline_access', 'learnables'],
    claims: { email: ['email', 'email_verified'], profile: ['name'] },
    pkce: { required: () => true },
    cookies: { keys: ['learnables-oidc-tests'] },
    features: {
      devInteractions: { enabled: true },
      deviceFlow: { enabled: true },
      clientCredentials: { enabled: true },
      revocation: { enabled: true },
      resourceIndicators: {
        enabled: true,
        defaultResource: async () => audience,
        useGrantedResource: async () => true,
        getResourceServerInfo: async (_ctx, resource, client) => {
          if (resource !== audience && resource !== other) throw new Provider.errors.InvalidTarget();
          return {
            scope: 'learnables',
            audience: resource,
            accessTokenFormat: 'jwt',
            accessTokenTTL: client.clientId === 'stale' ? 1 : 600,
            jwt: { sign: { alg: signing } },
          };
        },
      },
    },
    extraTokenClaims: async (_ctx, token) => {
      const person = token.accountId && people[token.accountId];
      return person ? { email: person.email, email_verified: person.email_verified } : undefined;
    },
    findAccount: async (_ctx, sub) => {
      const person = people[sub];
      if (!person) return undefined;
      return { accountId: sub, claims: async () => ({ sub, ...person }) };
    },
    loadExistingGrant: async (ctx) => {
      // The tests' people consent to every client: one grant of everything
      // the client asks, so no consent page follows the sign-in.
      const grantId = ctx.oidc.result?.consent?.grantId
        ?? ctx.oidc.session.grantIdFor(ctx.oidc.client.clientId);
      if (grantId) return ctx.oidc.provider.Grant.find(grantId);
      const grant = new ctx.oidc.provider.Grant({
        clientId: ctx.oidc.client.clientId,
        accountId: ctx.oidc.session.accountId,
      });
      grant.addOIDCScope('openid email profile offline_access');
      grant.addResourceScope(audience, 'learnables');
      await grant.save();
      return grant;
    },
  });
  // Plain HTTP on the loopback: the tests' provider only.
  provider.proxy = false;
  return provider;
}

let current;
const server = http.createServer((request, response) => {
  const url = new URL(request.url, 'http://127.0.0.1');
  if (request.method === 'POST' && url.pathname === '/test/rotate') {
    keys.unshift(signingKey(url.searchParams.get('alg') ?? 'ES256'));
    current = build(issuer).callback();
    response.writeHead(200, { 'content-type': 'application/json' });
    response.end(JSON.stringify({ kid: keys[0].jwk.kid }));
    return;
  }
  current(request, response);
});

let issuer;
server.listen(0, '127.0.0.1', () => {
  issuer = `http://127.0.0.1:${server.address().port}`;
  current = build(issuer).callback();
  process.stdout.write(`${JSON.stringify({ issuer })}\n`);
});
