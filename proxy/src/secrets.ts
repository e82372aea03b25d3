// The sidecar's ephemeral key pair. The control plane seals each secret to
// its public half; the private half never leaves this process and dies with
// it. A sealed secret is opened only at the moment a call needs it.
import { compactDecrypt, exportJWK, generateKeyPair, type CryptoKey } from 'jose';
import type { SealedSecret } from '@agentwall/shared/bundle';

export interface SecretOpener {
  /** base64url(JSON public JWK), sent in X-Agentwall-Sidecar-Key. */
  publicHeader: string;
  open(sealed: SealedSecret): Promise<string>;
}

export async function createSecretOpener(): Promise<SecretOpener> {
  const { publicKey, privateKey } = await generateKeyPair('ECDH-ES+A256KW', { crv: 'X25519' });
  const jwk = await exportJWK(publicKey);
  const priv: CryptoKey = privateKey;
  return {
    publicHeader: Buffer.from(JSON.stringify(jwk)).toString('base64url'),
    async open(sealed) {
      const { plaintext } = await compactDecrypt(sealed.sealed, priv, {
        keyManagementAlgorithms: ['ECDH-ES+A256KW'],
        contentEncryptionAlgorithms: ['A256GCM'],
      });
      return new TextDecoder().decode(plaintext);
    },
  };
}
