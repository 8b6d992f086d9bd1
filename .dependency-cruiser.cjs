// The dependency rule of src/ (docs/architecture.md): layers import downward only, and no folder imports one
// that imports it back (type-only imports count). Checked by test/architecture/dependencies.test.ts, which runs
// dependency-cruiser with this file; `npx depcruise src` prints the same report.
//
//   kernel  <-  resources  <-  domain (domain.ts, events/, db/, files/)  <-  http/  <-  adapters (rest/, graphql/, mcp/)
//           <-  documents about both APIs (pages/, docs/)  <-  app (app.ts, config.ts, ops/, cli/)  <-  main
const layers = [
  { name: 'kernel', path: '^src/(kernel|generated)/' },
  { name: 'resources', path: '^src/resources/' },
  { name: 'domain', path: '^src/(domain\\.ts$|events/|db/|files/)' },
  { name: 'http', path: '^src/http/' },
  { name: 'adapters', path: '^src/(rest|graphql|mcp)/' },
  { name: 'documents', path: '^src/(pages|docs)/' },
  { name: 'app', path: '^src/(app\\.ts$|config\\.ts$|ops/|cli/(?!main\\.ts$))' },
  { name: 'main', path: '^src/(main\\.ts|cli/main\\.ts)$' },
];

const upward = layers.flatMap((layer, index) =>
  layers.slice(index + 1).length === 0
    ? []
    : [
        {
          name: `${layer.name}-imports-upward`,
          comment: `${layer.name} may import only the layers below it (${layers.slice(0, index).map((l) => l.name).join(', ') || 'none'}), never ${layers.slice(index + 1).map((l) => l.name).join(', ')}`,
          severity: 'error',
          from: { path: layer.path },
          to: { path: layers.slice(index + 1).map((l) => l.path) },
        },
      ],
);

module.exports = {
  forbidden: [
    ...upward,
    {
      name: 'adapter-imports-adapter',
      comment: 'An adapter never speaks another adapter\'s wire format: REST and GraphQL (and the agents adapter) share only the layers below them',
      severity: 'error',
      from: { path: '^src/(rest|graphql|mcp)/' },
      to: { path: '^src/(rest|graphql|mcp)/', pathNot: '^src/$1/' },
    },
    {
      name: 'graphql-schema-imports-transport',
      comment: "GraphQL's schema generation (graphql/schema/) never imports its transport (graphql/transport/: HTTP, WebSocket, admission), which serves the schema",
      severity: 'error',
      from: { path: '^src/graphql/schema/' },
      to: { path: '^src/graphql/transport/' },
    },
    {
      name: 'adapter-past-the-domain',
      comment: 'Adapters and the layers above reach resources and the database through the domain (src/domain.ts), not past it',
      severity: 'error',
      from: { path: '^src/(rest|graphql|mcp|http|pages|docs)/' },
      to: { path: '^src/(resources|db|files)/' },
    },
    {
      name: 'app-past-the-domain',
      comment: 'The app wires the database (db/) but reaches resources through the domain (src/domain.ts)',
      severity: 'error',
      from: { path: '^src/(app\\.ts$|config\\.ts$|main\\.ts$|ops/|cli/)' },
      to: { path: '^src/resources/' },
    },
    {
      name: 'no-folder-circle',
      comment: 'No import circle between folders: a folder never (directly or through others) imports a folder that imports it back',
      severity: 'error',
      scope: 'folder',
      from: { path: '^src' },
      to: { circular: true },
    },
    {
      name: 'not-to-unresolvable',
      comment: 'Every import resolves',
      severity: 'error',
      from: { path: '^src/' },
      to: { couldNotResolve: true },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    exclude: { path: '^src/generated/' },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    combinedDependencies: false,
    enhancedResolveOptions: { exportsFields: ['exports'], conditionNames: ['import', 'require', 'node', 'default', 'types'], mainFields: ['module', 'main', 'types'] },
  },
};
