# One image for both processes of the service: the api (default command) and the worker
# (`node worker/main.ts`). Node 24 runs the TypeScript sources directly (type stripping).
# The Node of package-lock.json (the `node` devDependency the tests run on), pinned.
FROM node:24.21.0-bookworm-slim

WORKDIR /app
ENV NODE_ENV=production

COPY package.json package-lock.json ./
RUN npm ci --omit=dev --no-audit --no-fund

COPY openapi.yaml tsconfig.json ./
COPY src ./src
COPY workflows ./workflows
COPY activities ./activities
COPY worker ./worker
COPY tools/build-workflow-bundle.ts ./tools/

# Workers start without bundling workflow code at start-up.
RUN node tools/build-workflow-bundle.ts dist/workflow-bundle.js
ENV TEMPORAL_WORKFLOW_BUNDLE=/app/dist/workflow-bundle.js \
    HOST=0.0.0.0 \
    PORT=3000

USER node
EXPOSE 3000
CMD ["node", "src/api/main.ts"]
