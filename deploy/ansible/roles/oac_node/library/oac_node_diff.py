# The documentation of the oac_node role's action oac_node_diff, and the name Ansible (and
# ansible-lint) find it by: the action itself is action_plugins/oac_node_diff.py, which runs on
# the controller; nothing here ever runs on a host (as ansible.builtin.set_fact's module file).
from __future__ import annotations

DOCUMENTATION = r"""
module: oac_node_diff
short_description: The oac_node role's --diff, the installer's changed steps
description:
  - Reads the installer's --json output lines and, when --diff is on, reports changed with
    Ansible's own diff, one line per step that changed (in check mode, per step of the dry run's
    plan that would change); steps that change nothing are left out.
  - Without --diff, or when no step changed, it reports ok with no diff.
  - Runs on the controller only, never on a host.
options:
  lines:
    description: The installer's standard output lines (a registered command's stdout_lines).
    type: list
    elements: str
    required: true
author: oac-node
"""

EXAMPLES = r"""
- name: Node's changes (--diff)
  oac_node_diff:
    lines: "{{ _oac_node_install.stdout_lines | default([]) }}"
"""

RETURN = r"""
diff:
  description: >-
    before empty, after one line per changed step (created ..., in check mode create ...).
  returned: with --diff, when a step changed
  type: dict
"""
