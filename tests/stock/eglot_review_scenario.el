;;; eglot_review_scenario.el --- a stock Emacs + eglot user reviews the agent's change  -*- lexical-binding: t -*-
;; Run by tests/stock/test_emacs_review.py: emacs --batch -l eglot_review_scenario.el.
;; eglot 1.9 has no code lenses and no window/showDocument: the agent's lines show as a Flymake note,
;; the review as a message naming its diff file, and Undo is eglot's own code action menu
;; (`completing-read', answered from a queue here).
(require 'eglot)
(require 'json)
(require 'flymake)

(defvar spec (let ((json-object-type 'plist) (json-array-type 'list) (json-key-type 'keyword))
               (json-read-file (getenv "AGENTLS_SCENARIO"))))
(defvar out (list :messages nil :menus nil))
(defvar answers (plist-get spec :answers))

(defun put-out (key value) (setq out (plist-put out key value)))

(defun save-out ()
  (with-temp-file (plist-get spec :result)
    (insert (json-encode (append out (list :menus (vconcat (plist-get out :menus))
                                           :messages (vconcat (plist-get out :messages))))))))

(defun wait-for (predicate seconds)
  "Let Emacs run (process output, timers) until PREDICATE or SECONDS."
  (let ((deadline (+ (float-time) seconds)))
    (while (and (not (funcall predicate)) (< (float-time) deadline))
      (accept-process-output nil 0.05))
    (funcall predicate)))

(advice-add 'completing-read :override
            (lambda (prompt collection &rest _)
              (let ((answer (pop answers)))
                (put-out :menus (append (plist-get out :menus)
                                        (list (list :prompt prompt
                                                    :choices (vconcat (all-completions "" collection))
                                                    :picked answer))))
                answer)))
(advice-add 'eglot--message :before
            (lambda (format &rest args)
              (put-out :messages (cons (apply #'format format args) (plist-get out :messages)))))

(setq eglot-confirm-server-initiated-edits nil)
(add-to-list 'eglot-server-programs `(python-mode . ,(plist-get spec :cmd)))
(add-hook 'project-find-functions (lambda (_dir) (cons 'transient (plist-get spec :root))))
(setq process-environment (append (plist-get spec :env) process-environment))

(defun hints ()
  "The agent's marks Flymake shows in the buffer: (LINE TYPE TEXT)."
  (mapcar (lambda (d) (list (line-number-at-pos (flymake-diagnostic-beg d))
                            (symbol-name (flymake-diagnostic-type d))
                            (flymake-diagnostic-text d)))
          (seq-filter (lambda (d) (string-match-p "agent change" (flymake-diagnostic-text d)))
                      (flymake-diagnostics))))

(defun said (regexp)
  (seq-some (lambda (m) (string-match-p regexp m)) (plist-get out :messages)))

(defun command (name &rest arguments)
  (eglot-execute-command (eglot--current-server-or-lose) name (vconcat arguments)))

(defun scenario ()
  (set-buffer (find-file-noselect (plist-get spec :hello)))
  (python-mode)
  (apply #'eglot (eglot--guess-contact))
  (unless (wait-for (lambda () (and (eglot-current-server) eglot--managed-mode)) 20)
    (error "agentls never attached"))
  ;; Batch Emacs has no command loop to start Flymake's deferred check: start it as it would.
  (flymake-start)
  ;; 1. Auto: the agent edits line 2 without a dialog (the command answers at once; the answer is a
  ;; message). The unmodified buffer is reloaded as auto-revert would.
  (command "agentls.mode" "auto")
  (command "agentls.prompt" "change it")
  (unless (wait-for (lambda () (said "Changed\\.")) 30) (error "the answer never came"))
  (revert-buffer 'ignore-auto 'dont-ask 'preserve-modes)
  (flymake-start)
  (wait-for (lambda () (hints)) 10)
  (put-out :hints (vconcat (mapcar #'vconcat (hints))))
  ;; 2. The review: eglot cannot be asked to open a file, so a message lists it and names the diff.
  (command "agentls.review")
  (wait-for (lambda () (said "The diff: ")) 10)
  ;; 3. The user edits line 5 (unsaved), then Undo from the code action menu on line 2: the agent's
  ;; line goes back, the user's line stays, and the note goes.
  (goto-char (point-min))
  (forward-line 4)
  (delete-region (line-beginning-position) (line-end-position))
  (insert "print(greet(), \"mine\")")
  (eglot--signal-textDocument/didChange)
  (goto-char (point-min))
  (forward-line 1)
  ;; As from the keyboard (M-x eglot-code-actions RET): the last event is a key, so eglot asks with
  ;; `completing-read' (after a mouse event it would pop up a menu).
  (let ((last-nonmenu-event ?\r))
    (eglot-code-actions (point) (point) nil t))
  (unless (wait-for (lambda () (string-match-p "'hello'" (buffer-string))) 10)
    (error "the undo never reached the buffer: %s" (buffer-string)))
  (put-out :after-undo (buffer-string))
  (wait-for (lambda () (null (hints))) 10)
  (put-out :hints-after (vconcat (mapcar #'vconcat (hints)))))

(condition-case err
    (scenario)
  (error (put-out :error (error-message-string err))))
(save-out)
(kill-emacs 0)
