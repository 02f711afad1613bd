import * as shipped from '../../../shared/models/catalog';
import { withTestModels } from '../test-catalog';

/**
 * The catalog the artifact project's bundles of the test models import in place of
 * shared/models/catalog.ts (test/support/artifact/test-model-bundles.ts): the shipped one, then the test models.
 */
export const { MODEL_NAMES, findModel } = withTestModels(shipped);
