import { defaultKeymap, history, historyKeymap } from '@codemirror/commands';
import { json, jsonParseLinter } from '@codemirror/lang-json';
import { bracketMatching, defaultHighlightStyle, foldGutter, syntaxHighlighting } from '@codemirror/language';
import { linter, lintGutter } from '@codemirror/lint';
import { EditorState } from '@codemirror/state';
import { EditorView, keymap, lineNumbers } from '@codemirror/view';
import { useEffect, useRef } from 'preact/hooks';

/**
 * A CodeMirror 6 JSON editor (syntax errors marked as you type). `text` sets the content when it changes;
 * `onView` hands the view to the parent, which reads `view.state.doc.toString()` when saving.
 */
export function JsonEditor({
  text,
  label,
  onView,
}: {
  text: string;
  label: string;
  onView: (v: EditorView) => void;
}) {
  const host = useRef<HTMLDivElement>(null);
  const view = useRef<EditorView | null>(null);
  useEffect(() => {
    view.current = new EditorView({
      parent: host.current!,
      state: EditorState.create({
        doc: text,
        extensions: [
          lineNumbers(),
          foldGutter(),
          history(),
          bracketMatching(),
          syntaxHighlighting(defaultHighlightStyle),
          json(),
          linter(jsonParseLinter()),
          lintGutter(),
          keymap.of([...defaultKeymap, ...historyKeymap]),
          EditorView.contentAttributes.of({ 'aria-label': label }),
        ],
      }),
    });
    onView(view.current);
    return () => view.current?.destroy();
  }, []);
  useEffect(() => {
    const v = view.current;
    if (v && v.state.doc.toString() !== text)
      v.dispatch({ changes: { from: 0, to: v.state.doc.length, insert: text } });
  }, [text]);
  return <div class="editor" ref={host} />;
}
