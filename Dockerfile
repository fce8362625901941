# laurel: one image for the api and the workers (docker-compose.yml runs both).
FROM node:20-bookworm-slim AS build
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --no-audit --no-fund
COPY tsconfig.json ./
COPY src ./src
COPY workers ./workers
COPY lua ./lua
COPY bench ./bench
COPY test ./test
COPY vitest.config.ts ./
RUN npm run build && npm prune --omit=dev

FROM node:20-bookworm-slim
WORKDIR /app
ENV NODE_ENV=production
COPY --from=build /app/package.json ./
COPY --from=build /app/node_modules ./node_modules
COPY --from=build /app/dist ./dist
COPY --from=build /app/lua ./lua
USER node
EXPOSE 3000
ENTRYPOINT ["node", "--max-semi-space-size=32", "dist/src/cli.js"]
CMD ["start"]
