import { useState } from 'react';
import { useNavigate } from 'react-router';
import { Divider, Dropdown, DropdownItem, DropdownList, MenuToggle } from '@patternfly/react-core';
import { UserIcon } from '@patternfly/react-icons';
import type { Me } from '../api/types';

/** The masthead's menu of the signed-in user (AWX's user dropdown): his details, his passkeys, log out. */
export function UserMenu({ me, onLogout }: { me: Me; onLogout: () => void }) {
  const navigate = useNavigate();
  const [open, setOpen] = useState(false);
  const go = (path: string) => {
    setOpen(false);
    navigate(path);
  };
  return (
    <Dropdown
      isOpen={open}
      onOpenChange={setOpen}
      popperProps={{ position: 'right' }}
      toggle={(ref) => (
        <MenuToggle ref={ref} variant="plainText" icon={<UserIcon />} isExpanded={open} onClick={() => setOpen(!open)} aria-label={`User menu: ${me.username}`}>
          {me.username}
        </MenuToggle>
      )}
    >
      <DropdownList>
        <DropdownItem onClick={() => go(`/users/${me.id}`)}>User details</DropdownItem>
        <DropdownItem onClick={() => go('/security')} description="Your passkeys">Security</DropdownItem>
        <Divider component="li" />
        <DropdownItem onClick={() => { setOpen(false); onLogout(); }}>Log out</DropdownItem>
      </DropdownList>
    </Dropdown>
  );
}
