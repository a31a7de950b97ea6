"""scripts/setup.sh: idempotent and quick when everything is there; as a user
without root it names what is missing and the command that installs it."""
import os
import pwd
import shutil
import subprocess
import tempfile
import time
import unittest

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SETUP = os.path.join(ROOT, "scripts", "setup.sh")


class SetupTest(unittest.TestCase):
    def test_second_run_is_quick(self):
        start = time.monotonic()
        p = subprocess.run(["bash", SETUP], capture_output=True, text=True, timeout=300)
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertLess(time.monotonic() - start, 30, "everything is installed: the run only checks")
        self.assertNotIn("installing", p.stdout)

    @unittest.skipUnless(os.geteuid() == 0, "needs root to switch to an unprivileged user")
    def test_without_root_it_reports_what_is_missing(self):
        with tempfile.TemporaryDirectory() as tmp:
            os.chmod(tmp, 0o755)
            os.makedirs(os.path.join(tmp, "scripts"))
            shutil.copy(SETUP, os.path.join(tmp, "scripts", "setup.sh"))
            user = pwd.getpwnam("nobody")
            env = {"PATH": "/usr/bin:/bin", "ATTN_SETUP_EXTRA_PKGS": "attn-no-such-package"}
            p = subprocess.run(["bash", os.path.join(tmp, "scripts", "setup.sh")], capture_output=True, text=True,
                               env=env, timeout=60, user=user.pw_uid, group=user.pw_gid)
            self.assertEqual(p.returncode, 2, p.stdout + p.stderr)
            self.assertIn("attn-no-such-package", p.stderr)
            self.assertIn("apt-get install", p.stderr)
            self.assertNotIn("xsimd", p.stderr)  # xsimd is installed: only what is missing is named


if __name__ == "__main__":
    unittest.main()
