;;; eglot_scenario.el --- a stock Emacs + eglot user of agentls, no plugin  -*- lexical-binding: t -*-
;; Run by tests/stock/test_emacs.py: emacs --batch -l eglot_scenario.el.
;; The user's setup: eglot-server-programs for python-mode, and global-auto-revert-mode (the stock
;; way Emacs follows files that other programs change).  The only stand-in for the user is
;; `completing-read' (where eglot asks showMessageRequest), answered from a queue; a nil answer is
;; C-g, which eglot answers with nothing at all.
(require 'eglot)
(require 'json)
(require 'autorevert)

(defvar spec (let ((json-object-type 'plist) (json-array-type 'list) (json-key-type 'keyword))
               (json-read-file (getenv "AGENTLS_SCENARIO"))))
(defvar out (list :conflicts nil :dialogs nil :messages nil))
(defvar answers (plist-get spec :answers))

(defun save-out ()
  (with-temp-file (plist-get spec :result)
    (let ((json-encoding-pretty-print nil))
      (insert (json-encode (append out (list :conflicts (vconcat (plist-get out :conflicts))
                                             :dialogs (vconcat (plist-get out :dialogs))
                                             :modified-after-edits
                                             (if (plist-get (plist-get out :edits) :modified)
                                                 t :json-false))))))))

(defun put-out (key value) (setq out (plist-put out key value)))

(defun wait-for (predicate seconds)
  "Let Emacs run (process output, timers, file notifications) until PREDICATE or SECONDS."
  (let ((deadline (+ (float-time) seconds)))
    (while (and (not (funcall predicate)) (< (float-time) deadline))
      ;; C-g in a prompt leaves eglot's request handler without an answer; batch Emacs has no
      ;; command loop to quit to, so the dismissal is a throw to here (the same non-local exit).
      (catch 'dismissed (accept-process-output nil 0.05)))
    (funcall predicate)))

;; Every prompt Emacs would show about a file changed on disk counts as a conflict.
(advice-add 'ask-user-about-supersession-threat :override
            (lambda (file) (setq out (plist-put out :conflicts
                                                (cons (format "supersession: %s" file)
                                                      (plist-get out :conflicts))))))
(advice-add 'yes-or-no-p :around
            (lambda (orig prompt)
              (if (string-match-p "changed\\|Reread\\|Save anyway" prompt)
                  (progn (setq out (plist-put out :conflicts
                                              (cons prompt (plist-get out :conflicts))))
                         t)
                (funcall orig prompt))))
;; eglot's "Server wants to edit ... Proceed?" (the README turns it off: the agent's dialog asked).
(advice-add 'y-or-n-p :around
            (lambda (orig prompt)
              (if (string-match-p "Server wants to edit\\|changed\\|Reread" prompt)
                  (progn (setq out (plist-put out :conflicts
                                              (cons prompt (plist-get out :conflicts))))
                         t)
                (funcall orig prompt))))
(advice-add 'completing-read :override
            (lambda (prompt collection &rest _)
              (let ((answer (pop answers)))
                (setq out (plist-put out :dialogs
                                     (append (plist-get out :dialogs)
                                             (list (concat (or answer "C-g") " <- " prompt)))))
                (if answer answer (throw 'dismissed nil)))))
(advice-add 'eglot--message :before
            (lambda (format &rest args)
              (setq out (plist-put out :messages
                                   (cons (apply #'format format args) (plist-get out :messages))))))

;; Batch Emacs reads no file-notification events: poll the modification time instead.
(setq auto-revert-interval 0.1 auto-revert-verbose nil auto-revert-use-notify nil)
(global-auto-revert-mode 1)
(add-to-list 'eglot-server-programs
             `(python-mode . (,@(plist-get spec :cmd)
                              :initializationOptions (:dialogTimeout 1))))
;; The project is the directory with agentls.json (a user's would be their git checkout).
(add-hook 'project-find-functions (lambda (_dir) (cons 'transient (plist-get spec :root))))
(setq process-environment (append (plist-get spec :env) process-environment))

(defun run-command (arguments)
  "Run agentls.prompt the way eglot runs any command (a blocking request with a 10 s timeout)."
  (condition-case err
      (list :result (eglot-execute-command (eglot--current-server-or-lose) "agentls.prompt"
                                           (vconcat arguments)))
    (error (list :error (error-message-string err)))))

(defun scenario ()
  (let* ((unsaved (find-file-noselect (plist-get spec :unsaved)))
         (hello (find-file-noselect (plist-get spec :hello)))
         (original nil))
    (with-current-buffer unsaved
      (python-mode)
      (erase-buffer)
      (insert "print('only in the buffer')\n"))
    (set-buffer hello)
    (python-mode)
    (setq original (buffer-string))
    ;; What `M-x eglot' does (eglot-ensure waits for a command loop that batch mode lacks).
    (apply #'eglot (eglot--guess-contact))
    (unless (wait-for (lambda () (and (eglot-current-server) eglot--managed-mode)) 20)
      (error "agentls never attached"))
    (with-current-buffer unsaved (eglot--signal-textDocument/didChange))
    ;; 1. read an unsaved buffer and edit hello.py twice; the command answers at once (no 10 s
    ;; timeout, no frozen Emacs) and the answer comes as a message.
    (let ((answer (run-command '("read unsaved.py, then change hello twice"))))
      (put-out :edits-command answer))
    (unless (wait-for (lambda () (seq-some (lambda (m) (string-match-p "Edited twice" m))
                                           (plist-get out :messages)))
                      30)
      (error "the answer of the first prompt never came"))
    ;; auto-revert's reload of an unmodified buffer whose file changed: batch Emacs runs neither its
    ;; timer nor file notifications, so the scenario makes the same call auto-revert makes.
    (unless (buffer-modified-p) (revert-buffer 'ignore-auto 'dont-ask 'preserve-modes))
    (put-out :edits (list :buffer (buffer-string)
                          :disk (with-temp-buffer (insert-file-contents (plist-get spec :hello))
                                                  (buffer-string))
                          :modified (buffer-modified-p)))
    ;; One undo restores the text before the turn.
    (undo-boundary)
    (setq last-command nil)
    (undo-only)
    (put-out :after-undo (buffer-string))
    (revert-buffer 'ignore-auto 'dont-ask 'preserve-modes) ; back to the agent's text
    ;; The user's next edit and save: no prompt about the file.
    (goto-char (point-max))
    (insert "# the user was here\n")
    (save-buffer)
    (put-out :after-save (with-temp-buffer (insert-file-contents (plist-get spec :hello)) (buffer-string)))
    ;; 2. a permission dismissed with C-g: no answer ever reaches the server; it gives up after
    ;; dialogTimeout and the tool does not run.
    (put-out :dismissed (run-command '("run a command")))
    (unless (wait-for (lambda () (seq-some (lambda (m) (string-match-p "taken as dismissed" m))
                                           (plist-get out :messages)))
                      15)
      (error "the dismissed dialog never ended"))
    ;; 3. agentls.abort stops the long turn; the next prompt runs at once.
    (put-out :long (run-command '("think for a long time")))
    (wait-for (lambda () (file-exists-p (plist-get spec :model_busy))) 15)
    (eglot-execute-command (eglot--current-server-or-lose) "agentls.abort" [])
    (let ((started (float-time)))
      (run-command '("and now?"))
      (wait-for (lambda () (seq-some (lambda (m) (string-match-p "Right after the cancel" m))
                                     (plist-get out :messages)))
                10)
      (put-out :after-abort-seconds (- (float-time) started)))
    ;; 4. a prompt whose answer is just a message.
    (run-command '("a long job"))
    (unless (wait-for (lambda () (seq-some (lambda (m) (string-match-p "the long job is done" m))
                                           (plist-get out :messages)))
                      15)
      (error "the answer of the long job never came"))
    ;; 5. an agent edit of a buffer with unsaved text, with the README's setup: no prompt (every
    ;; y-or-n-p / yes-or-no-p and supersession question is recorded as a conflict), both texts in
    ;; the buffer, the disk untouched until the user saves, and the save asks nothing.
    (setq eglot-confirm-server-initiated-edits nil)
    (set-buffer hello)
    (goto-char (point-max))
    (insert "# unsaved\n")
    (eglot--signal-textDocument/didChange)
    (run-command '("change hello once more"))
    (unless (wait-for (lambda () (seq-some (lambda (m) (string-match-p "Changed once more" m))
                                           (plist-get out :messages)))
                      15)
      (error "the answer of the edit of the modified buffer never came"))
    (put-out :unsaved (list :buffer (buffer-string)
                            :disk (with-temp-buffer (insert-file-contents (plist-get spec :hello))
                                                    (buffer-string))
                            :modified (if (buffer-modified-p) t :json-false)))
    (save-buffer)
    (put-out :unsaved-saved (with-temp-buffer (insert-file-contents (plist-get spec :hello))
                              (buffer-string)))))

(condition-case err
    (scenario)
  (error (put-out :error (error-message-string err))))
(save-out)
(kill-emacs 0)
