// The merchant's logo as the hosted pages load it (<img src>): /branding/logos/{merchantId}/{digest}. The digest is the
// picture's SHA-256, so the URL never shows other bytes: cached for a year, and a new logo is a new URL. Sent with
// the type read from its bytes at upload, nosniff, and a policy that runs nothing should it be opened on its own.
import type { FastifyInstance } from 'fastify';
import { Type, type Static } from 'typebox';
import type { MerchantsService } from '../../modules/merchants/merchants.service.js';

const Params = Type.Object({
  merchantId: Type.String({ minLength: 1, maxLength: 64 }),
  digest: Type.String({ pattern: '^[0-9a-f]{64}$' }),
});

export function logoRoutes(merchants: MerchantsService) {
  return async function routes(app: FastifyInstance): Promise<void> {
    app.get<{ Params: Static<typeof Params> }>('/branding/logos/:merchantId/:digest', { schema: { hide: true, params: Params } }, async (request, reply) => {
      const logo = await merchants.logo(request.params.merchantId, request.params.digest);
      if (!logo) return reply.code(404).header('cache-control', 'no-store').send({ code: 'NOT_FOUND', message: 'No such logo' });
      return reply.type(logo.content_type)
        .header('cache-control', 'public, max-age=31536000, immutable')
        .header('x-content-type-options', 'nosniff')
        .header('content-security-policy', "default-src 'none'; sandbox")
        .send(Buffer.from(logo.image));
    });
  };
}
