package checker

import (
	"strings"

	"go.yaml.in/yaml/v3"
)

// CI and automation steps: the keys whose values are shell scripts, shared by the loader
// (which reads the documents and kube-proxy command lines the scripts write and run) and the
// rules that read the commands (KP401, KP402).

// stepScriptKeys hold shell scripts in CI and automation files: GitHub Actions run, GitLab
// CI script/before_script/after_script, Tekton and Argo step script, Ansible shell, command,
// raw (and cmd) with their fully qualified names.
var stepScriptKeys = map[string]bool{
	"run": true, "script": true, "before_script": true, "after_script": true,
	"shell": true, "command": true, "raw": true, "cmd": true,
	"ansible.builtin.shell": true, "ansible.builtin.command": true, "ansible.builtin.raw": true,
	"ansible.legacy.shell": true, "ansible.legacy.command": true, "ansible.legacy.raw": true,
}

// stepListKeys hold a list of shell commands, one script per item (GitLab CI).
var stepListKeys = map[string]bool{"script": true, "before_script": true, "after_script": true}

// StepScriptKey reports whether a mapping key holds a shell script (a step's run:, script:,
// an Ansible shell:, command:, raw:).
func StepScriptKey(k string) bool { return stepScriptKeys[k] }

// StepListKey reports whether a mapping key holds a list of shell commands, one script per
// item (GitLab CI's script lists).
func StepListKey(k string) bool { return stepListKeys[k] }

// IsLoopItem reports whether an Ansible task's command is only its loop item: "{{ item }}".
func IsLoopItem(s string) bool {
	s = strings.TrimSpace(s)
	if !strings.HasPrefix(s, "{{") || !strings.HasSuffix(s, "}}") {
		return false
	}
	return strings.TrimSpace(strings.Trim(s[2:len(s)-2], "-")) == "item"
}

// LoopItems returns the string items of an Ansible task's loop: or with_items: list.
func LoopItems(task *yaml.Node) []*yaml.Node {
	for i := 0; i+1 < len(task.Content); i += 2 {
		k, v := task.Content[i].Value, task.Content[i+1]
		if (k == "loop" || k == "with_items") && v.Kind == yaml.SequenceNode {
			var out []*yaml.Node
			for _, c := range v.Content {
				if c.Kind == yaml.ScalarNode {
					out = append(out, c)
				}
			}
			return out
		}
	}
	return nil
}
