import t from 'tap';
import { randomBytes } from 'node:crypto';
import { createKeyring, decryptSecret, encryptSecret, envelopeKid, maskSecret, parseMasterKeys, randomBase62 } from '@agentwall/shared/crypto';

const k1 = { kid: 'k1', key: new Uint8Array(randomBytes(32)) };
const k2 = { kid: 'k2', key: new Uint8Array(randomBytes(32)) };

t.test('an envelope round-trips and never contains the clear text', async (t) => {
  const ring = createKeyring([k1]);
  const env = await encryptSecret(ring, 'canary-secret-value-123');
  t.notMatch(env, /canary/);
  t.equal(envelopeKid(env), 'k1');
  t.equal(await decryptSecret(ring, env), 'canary-secret-value-123');
});

t.test('after rotation the new primary encrypts and old envelopes still open', async (t) => {
  const old = await encryptSecret(createKeyring([k1]), 's1');
  const ring = createKeyring([k2, k1]);
  t.equal(envelopeKid(await encryptSecret(ring, 's2')), 'k2');
  t.equal(await decryptSecret(ring, old), 's1');
});

t.test('denies an envelope whose key id is unknown or whose bytes were changed', async (t) => {
  const env = await encryptSecret(createKeyring([k1]), 'x');
  await t.rejects(decryptSecret(createKeyring([k2]), env), /no master key/);
  const parts = env.split('.');
  parts[3] = parts[3]!.slice(0, -2) + (parts[3]!.endsWith('AA') ? 'BB' : 'AA');
  await t.rejects(decryptSecret(createKeyring([k1]), parts.join('.')));
  await t.rejects(decryptSecret(createKeyring([k1]), 'not-an-envelope'), /not a readable envelope/);
});

t.test('master keys parse from the environment; errors never echo the value', async (t) => {
  const b64 = Buffer.from(k1.key).toString('base64');
  t.equal(parseMasterKeys({ AGENTWALL_MASTER_KEY: b64 })?.[0]?.kid, 'k1');
  t.same(parseMasterKeys({ AGENTWALL_MASTER_KEYS: `a:${b64},b:${b64}` })?.map((k) => k.kid), ['a', 'b']);
  t.equal(parseMasterKeys({}), undefined);
  let message = '';
  try {
    parseMasterKeys({ AGENTWALL_MASTER_KEY: 'c2hvcnQtc2VjcmV0LWNhbmFyeQ==' });
  } catch (e) {
    message = (e as Error).message;
  }
  t.match(message, /AGENTWALL_MASTER_KEY must be 32 bytes/);
  t.notMatch(message, /c2hvcnQ/);
  t.throws(() => createKeyring([k1, { ...k2, kid: 'k1' }]), /twice/);
});

t.test('mask shows the last 4 characters only from 16 characters on', async (t) => {
  t.equal(maskSecret('abcdefghijklmnop'), '****mnop');
  t.equal(maskSecret('abcdefghijklmno'), '****');
  t.equal(maskSecret(''), '****');
});

t.test('random credentials are base62 of the asked length', async (t) => {
  const s = randomBase62(40);
  t.match(s, /^[0-9A-Za-z]{40}$/);
  t.not(s, randomBase62(40));
});
