/**
 * docker-compose.yml as written (no Docker engine here: test/ops/image.test.ts builds the image):
 * Redis with AOF, Postgres with laurel's database, api and worker containers that `--scale` can
 * multiply (no host port of their own: one load balancer publishes the port and finds every api
 * container), health checks on their /ready, the ports the Dockerfile exposes, a restart policy on
 * every container, and passwords taken from the environment, never written in the file.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';

const ROOT = join(import.meta.dirname, '..', '..');
const read = (f: string) => readFileSync(join(ROOT, f), 'utf8');

interface Service {
  image?: string;
  build?: string;
  command?: string[];
  environment?: Record<string, string>;
  ports?: string[];
  expose?: string[];
  volumes?: string[];
  healthcheck?: { test: string[] };
  restart?: string;
}

const compose = parse(read('docker-compose.yml'), { merge: true }) as { services: Record<string, Service> };
const { services } = compose;

describe('docker-compose.yml', () => {
  it('runs Redis with AOF and Postgres with laurel\'s database', () => {
    expect(services.redis.command).toEqual(expect.arrayContaining(['--appendonly', 'yes', '--appendfsync', 'everysec']));
    expect(services.postgres.environment?.POSTGRES_DB).toBe('laurel');
  });

  it('runs api and workers containers from the image, each scalable: no host port but the load balancer\'s', () => {
    const { api, workers, lb } = services;
    expect(api.build).toBe('.');
    expect(workers.build).toBe('.');
    expect(api.image).toBe(workers.image);
    expect(api.command).toEqual(['api']);
    expect(workers.command).toEqual(['workers']);
    for (const s of [api, workers]) {
      expect(s.environment?.REDIS_URL).toMatch(/^redis:\/\/:\$\{LAUREL_REDIS_PASSWORD:\?[^}]+\}@redis:6379$/);
      expect(s.environment?.DATABASE_URL).toMatch(/^postgres:\/\/laurel:\$\{LAUREL_POSTGRES_PASSWORD:\?[^}]+\}@postgres:5432\/laurel$/);
    }
    for (const [name, s] of Object.entries(services)) if (name !== 'lb') expect(s.ports, name).toBeUndefined();
    expect(lb.ports).toEqual(['${LAUREL_PORT:-3000}:3000']);
  });

  it('checks each container\'s /ready on the ports the Dockerfile exposes, the workers\' from LAUREL_WORKERS_PORT', () => {
    const exposed = /^EXPOSE (.+)$/m.exec(read('Dockerfile'))?.[1].split(/\s+/) ?? [];
    const port = services.workers.environment?.LAUREL_WORKERS_PORT;
    expect(exposed).toEqual(['3000', port]);
    expect(services.api.healthcheck?.test.join(' ')).toContain('http://127.0.0.1:3000/ready');
    expect(services.workers.healthcheck?.test.join(' ')).toContain(`http://127.0.0.1:${port}/ready`);
  });

  it('balances over every api container that is ready, found again through Docker\'s DNS', () => {
    const volume = services.lb.volumes?.[0] ?? '';
    const config = volume.split(':')[0].replace(/^\.\//, '');
    expect(existsSync(join(ROOT, config))).toBe(true);
    const cfg = read(config);
    expect(cfg).toMatch(/^\s*server-template api \d+ api:3000$/m);
    expect(cfg).toMatch(/^\s*option httpchk GET \/ready$/m);
    expect(cfg).toMatch(/^\s*nameserver dns 127\.0\.0\.11:53$/m);
    expect(cfg).toMatch(/^\s*bind :3000$/m);
  });

  it('restarts every container after a crash or a reboot, until it is stopped', () => {
    for (const [name, s] of Object.entries(services)) expect(s.restart, name).toBe('unless-stopped');
  });

  it('takes every password from the environment, required, and gives Redis one', () => {
    const required = (name: string) => new RegExp(`^\\$\\{${name}:\\?[^}]+\\}$`);
    expect(services.postgres.environment?.POSTGRES_PASSWORD).toMatch(required('LAUREL_POSTGRES_PASSWORD'));
    const auth = services.redis.command ?? [];
    expect(auth[auth.indexOf('--requirepass') + 1]).toMatch(required('LAUREL_REDIS_PASSWORD'));
    expect(services.redis.environment?.REDISCLI_AUTH).toMatch(required('LAUREL_REDIS_PASSWORD'));
    // No password written in the file: every value naming one is a required variable.
    const text = read('docker-compose.yml');
    expect(text).not.toMatch(/^\s*[A-Z_]*PASSWORD:\s*[^$\s]/m);
    expect(text).not.toMatch(/:\/\/[^:$/]*:[^$@/]+@/);
  });
});
