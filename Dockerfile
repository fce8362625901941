# laurel: one image for the api, the workers and the dashboard (docker-compose.yml runs them).
# Built and run on Node.js 20, as CI tests it (docs/operations.md, "Node.js").
# test/ops/image.test.ts replays these steps without a Docker engine: keep to FROM, WORKDIR, COPY,
# RUN, ENV, USER, EXPOSE, ENTRYPOINT and CMD.
FROM node:20-bookworm-slim AS build
WORKDIR /app
# The packages in a layer of their own, built again only when they change. No install script runs:
# the binaries laurel needs (uWebSockets.js, esbuild, msgpackr's) come inside their packages, and
# laurel's own build (its `prepare`) needs the sources, built below.
COPY package.json package-lock.json ./
RUN npm ci --ignore-scripts --prefer-offline --no-audit --no-fund
# The whole context (.dockerignore leaves out node_modules, dist and the like): the server, the
# workers, the dashboard, the Lua scripts, and the tests and bench the TypeScript build compiles.
COPY . .
RUN npm run build && npm prune --omit=dev --ignore-scripts --no-audit --no-fund

FROM node:20-bookworm-slim
WORKDIR /app
ENV NODE_ENV=production
COPY --from=build /app/package.json ./
COPY --from=build /app/node_modules ./node_modules
COPY --from=build /app/dist ./dist
COPY --from=build /app/lua ./lua
USER node
# The api; the workers' health endpoint when LAUREL_WORKERS_PORT=9464 (docker-compose.yml sets it).
EXPOSE 3000 9464
ENTRYPOINT ["node", "--max-semi-space-size=32", "dist/src/cli.js"]
CMD ["start"]
