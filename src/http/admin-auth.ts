// The operator's admin token guards /admin/v1. Only its SHA-256 is kept; comparison is constant-time.
import { timingSafeEqual } from 'node:crypto';
import type { FastifyRequest } from 'fastify';
import { AppError } from '../shared/errors.js';
import { sha256Hex } from '../shared/hash.js';
import { bearerToken } from './auth.js';

export function adminAuthHook(adminTokenHash: string) {
  const expected = Buffer.from(adminTokenHash, 'hex');
  return async function authenticateAdmin(request: FastifyRequest): Promise<void> {
    const token = bearerToken(request);
    if (!token) throw new AppError('UNAUTHORIZED', 'Send the admin token as "Authorization: Bearer <MOTU_ADMIN_TOKEN>"');
    const given = Buffer.from(sha256Hex(token), 'hex');
    if (!timingSafeEqual(given, expected)) throw new AppError('UNAUTHORIZED', 'This admin token is not valid');
  };
}
