import type { ConfigLayer } from './layers.ts';

/**
 * The mission's layer tree as nested lists: a header is a group named by its heading, every other layer a
 * checkbox labelled by its name (checked when the config's `visibility` is not false).
 */
export function renderTree(
  root: HTMLElement,
  layers: ConfigLayer[],
  onToggle: (layer: ConfigLayer, on: boolean) => void,
): void {
  const list = (items: ConfigLayer[]): HTMLUListElement => {
    const ul = document.createElement('ul');
    for (const layer of items) {
      const li = document.createElement('li');
      if (layer.type === 'header') {
        const head = document.createElement('span');
        head.className = 'header';
        head.textContent = layer.name;
        li.append(head, list(layer.sublayers ?? []));
      } else {
        const label = document.createElement('label');
        const box = document.createElement('input');
        box.type = 'checkbox';
        box.checked = layer.visibility !== false;
        box.addEventListener('change', () => onToggle(layer, box.checked));
        label.append(box, ` ${layer.name}`);
        li.append(label);
      }
      ul.append(li);
    }
    return ul;
  };
  root.replaceChildren(list(layers));
}
