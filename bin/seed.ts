/** `npm run seed`: registers the demo projects (fixed guids, so the examples in README.md and docs/ work verbatim) and prints them. */
import { useLocalStore } from './local-store.ts';

export const demoProjects = [
  { projectGuid: '0a1b2c3d4e5f40718293a4b5c6d7e8f9', name: 'Photo book A4, 24 pages', unitPriceMinor: 2999 },
  { projectGuid: '1b2c3d4e5f60718293a4b5c6d7e8f90a', name: 'Canvas print 40x60', unitPriceMinor: 4950 },
  { projectGuid: '2c3d4e5f6071829304b5c6d7e8f90a1b', name: 'Wall calendar 2027', unitPriceMinor: 1999 },
];

const storage = await useLocalStore();
const { saveProject } = await import('../functions/services/project-service.ts');
try {
  for (const project of demoProjects) {
    await saveProject({
      projectGuid: project.projectGuid,
      name: project.name,
      unitPriceMinor: project.unitPriceMinor,
      version: 1,
      lastSavedAt: Date.now(),
    });
    process.stdout.write(`${project.projectGuid}\t${(project.unitPriceMinor / 100).toFixed(2)}\t${project.name}\n`);
  }
} finally {
  await storage.close();
}
