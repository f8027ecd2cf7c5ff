// Entry script of a mode page without a script of its own.
import {bindLessonNavigation} from "../lesson-nav.js";

bindLessonNavigation();
