import { Button, Modal, ModalBody, ModalFooter, ModalHeader } from '@patternfly/react-core';
import { ApiError } from '../../../api/errors';
import { ErrorAlert } from '../../../components/ErrorAlert';
import { refusalFindings } from '../../../components/ScanFindings';

/** Whether a launch was refused by a scanner with findings to show (docs/scanners.md). */
export const refusedByScanner = (error: unknown): boolean => error instanceof ApiError && refusalFindings(error.body).length > 0;

/**
 * A launch a scanner refused, in a dialog of its own: the detail, the reasons and the findings,
 * so the user sees what to fix (a launch without prompts has no wizard to show them in).
 */
export function ScannerRefusalModal({ name, error, onClose }: { name: string; error: unknown; onClose: () => void }) {
  return (
    <Modal isOpen variant="large" onClose={onClose} aria-labelledby="scanner-refusal-title">
      <ModalHeader title={`${name} was not launched`} labelId="scanner-refusal-title" titleIconVariant="danger" />
      <ModalBody>
        <ErrorAlert error={error} title="Not launched" />
      </ModalBody>
      <ModalFooter>
        <Button variant="primary" onClick={onClose}>Close</Button>
      </ModalFooter>
    </Modal>
  );
}
