# The oac_node role's --diff (issue #39 item 11; documented in library/oac_node_diff.py): the
# installer's steps that changed something (in check mode, that would), one line each, as
# Ansible's own diff, which ansible-playbook --diff renders as it renders any module's (--- before
# / +++ after / +line). Ansible's callbacks show a result's diff only when the task changed, and
# the task that ran the installer holds the token (no_log hides its whole result, a diff too):
# this task runs on the controller after it, reads the installer's --json lines (its registered
# stdout_lines) and reports changed with the diff only when --diff is on and a step changed.
# Without --diff it is ok, with nothing to show: a play's changed count is then what it was
# without this task (with --diff, the recap counts this task's change beside the installer's).
#
# In check mode the steps are the dry run's plan, in its words (create, update, remove ...);
# otherwise what the run did (created, updated, removed ...). Steps that change nothing are
# left out. A line is shown as the installer wrote it, its control characters escaped.
from __future__ import annotations

import json

from ansible.plugins.action import ActionBase

# Plan kinds and outcomes that change nothing (src/core/step.ts).
_UNCHANGED_KINDS = frozenset(('unchanged', 'keep', 'skip', 'refuse'))
_UNCHANGED_OUTCOMES = frozenset(('unchanged', 'kept', 'skipped'))


def _printable(text):
    return ''.join(
        c if c.isprintable() else c.encode('unicode_escape').decode('ascii') for c in text)


def _events(lines):
    for line in lines:
        if not isinstance(line, str) or not line.startswith('{'):
            continue
        try:
            event = json.loads(line)
        except ValueError:
            continue
        if isinstance(event, dict):
            yield event


def changed_steps(lines, planned):
    """One line per step that changed (planned: would change), as '<kind> <detail>'."""
    steps = []
    for event in _events(lines):
        if planned and event.get('type') == 'step-plan':
            entry, word, unchanged = event.get('action'), 'kind', _UNCHANGED_KINDS
        elif not planned and event.get('type') == 'step-done':
            entry, word, unchanged = event.get('result'), 'outcome', _UNCHANGED_OUTCOMES
        else:
            continue
        if not isinstance(entry, dict) or entry.get(word) in unchanged:
            continue
        steps.append(_printable('%s %s' % (entry.get(word, ''), entry.get('detail', ''))).strip())
    return steps


class ActionModule(ActionBase):
    TRANSFERS_FILES = False
    _VALID_ARGS = frozenset(('lines',))

    def run(self, tmp=None, task_vars=None):
        result = super().run(tmp, task_vars)
        _, args = self.validate_argument_spec(
            argument_spec={'lines': {'type': 'list', 'elements': 'str', 'required': True}})
        steps = changed_steps(args['lines'], planned=bool(self._task.check_mode))
        result['changed'] = False
        if self._task.diff and steps:
            result['changed'] = True
            result['diff'] = {'before': '', 'after': ''.join('%s\n' % step for step in steps)}
        return result
